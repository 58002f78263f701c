/**
 * Android APK: the entry list and the manifest (package, versions, SDK levels, permissions,
 * components) decoded from the binary AndroidManifest.xml.
 */
import type { Unzipped } from "fflate";
import type { Extracted } from "../result.ts";
import type { ArchiveListing } from "./archive.ts";
import { readApkManifest } from "./axml.ts";

export function extractApk(files: Unzipped, listing: ArchiveListing): Extracted {
  const manifestBytes = files["AndroidManifest.xml"] as Uint8Array;
  const apk = readApkManifest(
    Buffer.from(manifestBytes.buffer, manifestBytes.byteOffset, manifestBytes.byteLength),
  );
  // The entries are code and resources, not documents: listed, not read.
  const entries = listing.entries.map((e) => ({ name: e.name, size: e.size }));
  const archive = {
    entry_count: entries.length,
    entries,
    ...(listing.truncated ? { truncated: listing.truncated } : {}),
  };
  const summary = [
    apk.package && `package ${apk.package}`,
    apk.version_name && `version ${apk.version_name}`,
    ...apk.permissions.map((p) => `permission ${p}`),
  ].filter(Boolean);
  return { text: summary.join("\n"), extra: { apk: { ...apk }, archive } };
}
