/**
 * Archives written by Debian's tools, each in a temp folder removed afterwards: 7z, TAR, XZ and
 * BZIP2 by 7zz (7zip), ISO 9660 images by xorriso, CAB cabinets by gcab.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";

const run = promisify(execFile);

async function inTree(
  files: Record<string, Buffer | string>,
  write: (src: string, out: string) => Promise<unknown>,
): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-archive-"));
  try {
    const src = path.join(dir, "src");
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(src, name)), { recursive: true });
      await writeFile(path.join(src, name), content);
    }
    const out = path.join(dir, "out.bin");
    await write(src, out);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An ISO 9660 image with Joliet and Rock Ridge names, labelled `volume`. */
export function isoImage(files: Record<string, Buffer | string>, volume: string): Promise<Buffer> {
  return inTree(files, (src, out) =>
    run("xorriso", ["-as", "mkisofs", "-quiet", "-J", "-R", "-V", volume, "-o", out, src], {
      timeout: 60_000,
    }),
  );
}

/** A Microsoft cabinet, MSZIP-compressed. */
export function cabinet(files: Record<string, Buffer | string>): Promise<Buffer> {
  return inTree(files, (src, out) =>
    run("gcab", ["-c", "-z", out, ...Object.keys(files)], { cwd: src, timeout: 60_000 }),
  );
}

export function sevenZipArchive(
  files: Record<string, Buffer | string>,
  opts: { password?: string; encryptHeaders?: boolean; headerCompression?: boolean; solid?: boolean } = {},
): Promise<Buffer> {
  const args = ["a", "-bd", "-y", "-t7z", "-mx=9"];
  if (opts.password) args.push(`-p${opts.password}`, `-mhe=${opts.encryptHeaders ? "on" : "off"}`);
  if (opts.headerCompression === false) args.push("-mhc=off");
  if (opts.solid === false) args.push("-ms=off");
  return inTree(files, (src, out) => run("7zz", [...args, out, "."], { cwd: src, timeout: 60_000 }));
}

/** A POSIX tar of the files. */
export function tarball(files: Record<string, Buffer | string>): Promise<Buffer> {
  return inTree(files, (src, out) =>
    run("7zz", ["a", "-bd", "-y", "-ttar", out, "."], { cwd: src, timeout: 60_000 }),
  );
}

/** One file compressed as an XZ or BZIP2 stream. */
export function compressedStream(content: Buffer | string, kind: "xz" | "bzip2"): Promise<Buffer> {
  return inTree({ data: content }, (src, out) =>
    run("7zz", ["a", "-bd", "-y", `-t${kind}`, out, "data"], { cwd: src, timeout: 60_000 }),
  );
}

/**
 * A ZIP whose entries are encrypted: ZipCrypto by Info-ZIP's `zip -P`, WinZip AES-256 by 7zz.
 * `passwords` gives some files a password of their own (one run per password, appending).
 */
export function encryptedZip(
  files: Record<string, Buffer | string>,
  opts: { password: string; method: "zipcrypto" | "aes256"; passwords?: Record<string, string> },
): Promise<Buffer> {
  const groups = new Map<string, string[]>();
  for (const name of Object.keys(files)) {
    const password = opts.passwords?.[name] ?? opts.password;
    groups.set(password, [...(groups.get(password) ?? []), name]);
  }
  return inTree(files, async (src, out) => {
    for (const [password, names] of groups) {
      const [tool, args] =
        opts.method === "zipcrypto"
          ? ["zip", ["-q", "-P", password, out, ...names]]
          : ["7zz", ["a", "-bd", "-y", "-tzip", `-p${password}`, "-mem=AES256", out, ...names]];
      await run(tool, args, { cwd: src, timeout: 120_000, maxBuffer: 1 << 26 });
    }
  });
}

/**
 * A copy of a 7z archive whose 7zAES coders ask for 2^`power` key-derivation rounds (7-Zip writes
 * 19 and has no switch for it): the coder properties are patched where the header is stored as is
 * or encoded (`headerCompression: false`, or `encryptHeaders`), and both CRCs recomputed. The
 * content was encrypted with 2^19 rounds, so no password opens the copy: a hostile archive's shape.
 */
export function withKeyPower(archive: Buffer, power: number): Buffer {
  const out = Buffer.from(archive);
  const start = 32 + Number(out.readBigUInt64LE(12));
  const aes = Buffer.from([0x24, 0x06, 0xf1, 0x07, 0x01]);
  let patched = 0;
  for (let at = out.indexOf(aes, start); at >= 0; at = out.indexOf(aes, at + 1)) {
    const props = at + aes.length + 1; // after the one-byte properties size
    out[props] = ((out[props] ?? 0) & 0xc0) | power;
    patched++;
  }
  if (patched === 0) throw new Error("no 7zAES coder in a readable header");
  out.writeUInt32LE(crc32(out.subarray(start, start + Number(out.readBigUInt64LE(20)))), 28);
  out.writeUInt32LE(crc32(out.subarray(12, 32)), 8);
  return out;
}
