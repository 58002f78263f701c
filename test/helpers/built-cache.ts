/**
 * Hostile inputs that take seconds to build (bombs compressed by 7zz, a gigabyte through gzip),
 * kept on disk under the temp folder so the suite's files that send the same case build it once.
 * The key hashes the builders' own sources and the Node version: an edit to them builds afresh.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const CACHE_DIR = path.join(os.tmpdir(), "loupe-built-fixtures");

/** A key that changes whenever one of `sourceFiles` (the code that builds the bytes) does. */
export function buildersKey(sourceFiles: string[]): string {
  const hash = createHash("sha256").update(process.version);
  for (const file of sourceFiles) hash.update(file).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}

/** `build()`'s bytes, from the cache when an earlier build of `name` under `key` left them there. */
export async function cachedBuild(key: string, name: string, build: () => Promise<Buffer>): Promise<Buffer> {
  const file = path.join(CACHE_DIR, createHash("sha256").update(key).update(name).digest("hex").slice(0, 32));
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const bytes = await build();
  await mkdir(CACHE_DIR, { recursive: true });
  // Written aside, then renamed: a reader never sees half a file, and two builders racing leave one.
  const partial = `${file}.${randomUUID()}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
  return bytes;
}
