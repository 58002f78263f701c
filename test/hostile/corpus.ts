/**
 * The hostile corpus as files, for people: `./loupe test`'s hostile suites build every case in
 * code; this writes the same cases into a folder (with a manifest saying where each goes and which
 * answers are right) so they can be replayed with curl against any deployment. Cases over 1 MB are
 * listed in the manifest but not written: their builders make them in memory in a few milliseconds.
 *
 *   node test/hostile/corpus.ts [folder]   (default test/fixtures/hostile/generated)
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { SUPER_TYPES } from "../../src/intel/model/taxonomy.ts";
import { worstCaseValues } from "../helpers/hostile-values.ts";
import { executableCases } from "./executable-cases.ts";
import { extractCases } from "./extract-cases.ts";
import { type ImageCase, imageCaseGroups } from "./image-cases.ts";
import { HOSTILE_SHA1, hostileHashlookupRecord } from "./intel-cases.ts";
import { YARA_CASES } from "./yara-cases.ts";

const MAX_WRITTEN = 1024 * 1024;

export interface CorpusEntry {
  file: string | null;
  endpoint: string;
  bytes: number;
  /** What a right answer looks like (`400:<code>`, `200:<error_short>`, `200:partial`…). */
  accept: string[];
  query?: string;
  rules?: string;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 80);

async function imageEntries(): Promise<Array<[string, ImageCase]>> {
  // The corpus's SVGs point at an address that must never be called (TEST-NET-1, unroutable).
  const groups = await imageCaseGroups("http://192.0.2.1:9");
  return groups
    .flatMap(([, cases]) => cases)
    .map((c) => [`images/${slug(c.name)}${path.extname(c.filename)}`, c]);
}

/** Writes the corpus into `dir`; returns the manifest (also written as manifest.json). */
export async function writeCorpus(dir: string): Promise<Record<string, CorpusEntry>> {
  const manifest: Record<string, CorpusEntry> = {};
  const put = async (name: string, bytes: Uint8Array, entry: Omit<CorpusEntry, "file" | "bytes">) => {
    const written = bytes.length <= MAX_WRITTEN;
    if (written) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), bytes);
    }
    manifest[name] = { file: written ? name : null, bytes: bytes.length, ...entry };
  };
  for (const [name, c] of await imageEntries())
    await put(name, c.bytes, {
      endpoint: "/converter/thumbnail",
      accept: c.codes.map((code) => (code === "thumbnail" ? "200:png" : `400:${code}`)),
      ...(c.query ? { query: c.query } : {}),
    });
  for (const c of YARA_CASES)
    await put(`yara/${slug(c.name)}.yar`, Buffer.from(c.rules), {
      endpoint: "/analyzer/rulematch",
      accept: c.accept,
    });
  for (const c of extractCases)
    await put(`extract/${slug(c.name)}-${c.filename}`, await c.bytes(), {
      endpoint: "/analyzer/extractor",
      accept:
        c.expect === "partial" ? ["200:partial", "200:resource_limit", "200:timeout"] : ["200:any-entry"],
    });
  for (const c of executableCases)
    await put(`executable/${slug(c.name)}-${c.filename}`, c.bytes(), {
      endpoint: "/analyzer/extractor",
      accept: ["200:executable-facts", "200:executable-error"],
    });
  const values = SUPER_TYPES.flatMap((st) =>
    st.types.map((t) => ({ super_type: st.shortName, type: t.shortName, values: worstCaseValues(t) })),
  );
  await put("intel/worst-case-values.json", Buffer.from(JSON.stringify(values, null, 1)), {
    endpoint: "/api/request/",
    accept: ["400:invalid_value", "400:value_too_long"],
  });
  // A vendor's answer, not a request: serve it as hashlookup's /lookup/sha1/<sha1> (INTEL_VENDOR_URL_HASHLOOKUP), then ask.
  await put(`intel/hashlookup-${HOSTILE_SHA1}.json`, Buffer.from(JSON.stringify(hostileHashlookupRecord())), {
    endpoint: "/api/request/",
    accept: ["200:capped"],
  });
  await writeFile(path.join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}

if (import.meta.main) {
  const dir = path.resolve(process.argv[2] ?? path.join(ROOT, "test/fixtures/hostile/generated"));
  const manifest = await writeCorpus(dir);
  process.stdout.write(`${Object.keys(manifest).length} hostile cases described in ${dir}/manifest.json\n`);
}
