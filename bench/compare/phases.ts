/**
 * Where a thumbnail's time goes, in process, one image at a time: temp-file write, header read,
 * decode + resize, PNG encode at several settings (pixels unchanged: only zlib level and row
 * filters differ). `node bench/compare/phases.ts`; BENCH_SHARP_CONCURRENCY sets libvips threads.
 */
import { createHash } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp, { type PngOptions } from "sharp";
import { makeThumbnail } from "../../src/files/converters/thumbnail.ts";
import { fmt } from "../lib/measure.ts";
import { type ImageInput, phonePhotos, smallImages } from "./inputs.ts";

const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
if (process.env.BENCH_SHARP_CONCURRENCY) sharp.concurrency(Number(process.env.BENCH_SHARP_CONCURRENCY));
sharp.cache(false);

/**
 * Median CPU milliseconds (user + system, all threads of this process) of `REPEAT` runs: on a
 * shared machine, CPU time moves far less than wall time when other processes take the cores.
 */
async function time(task: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = process.cpuUsage();
    await task();
    const used = process.cpuUsage(t0);
    ms.push((used.user + used.system) / 1000);
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? 0;
}

const PNG_SETTINGS: Array<[string, PngOptions]> = [
  ["png6", { compressionLevel: 6 }],
  ["png1", { compressionLevel: 1 }],
  ["png0", { compressionLevel: 0 }],
  ["png6+filters", { compressionLevel: 6, adaptiveFiltering: true }],
];

async function phases(
  img: ImageInput,
  query: { width: number; height: number },
): Promise<Record<string, string>> {
  const file = path.join(os.tmpdir(), `loupe-phases-${process.pid}-${img.name}`);
  const request = { ...query, strategy: "fit" as const };
  const row: Record<string, string> = { image: img.name, KB: fmt(img.bytes.length / 1024, 0) };
  row["temp write"] = fmt(await time(async () => writeFile(file, img.bytes)));
  row.hashes = fmt(
    await time(async () => {
      for (const h of ["md5", "sha1", "sha256"]) createHash(h).update(img.bytes).digest();
    }),
  );
  row["thumbnail (file)"] = fmt(await time(() => makeThumbnail(file, request, { maxImagePixels: 1e9 })));
  row["thumbnail (bytes)"] = fmt(
    await time(() => makeThumbnail(img.bytes, request, { maxImagePixels: 1e9 })),
  );
  await rm(file, { force: true });
  if (img.name.endsWith(".bmp")) return row; // libvips reads no BMP: Loupe decodes those itself.
  row.header = fmt(await time(() => sharp(img.bytes).metadata()));
  const decode = () =>
    sharp(img.bytes, { sequentialRead: true })
      .autoOrient()
      .ensureAlpha()
      .resize(query.width, query.height, { fit: "cover" });
  row["decode+resize raw"] = fmt(await time(() => decode().raw().toBuffer()));
  const { data, info } = await decode().raw().toBuffer({ resolveWithObject: true });
  const rawOpts = { raw: { width: info.width, height: info.height, channels: info.channels } };
  for (const [name, opts] of PNG_SETTINGS) {
    row[name] = fmt(await time(() => sharp(data, rawOpts).png(opts).toBuffer()), 2);
  }
  return row;
}

async function main(): Promise<void> {
  console.log(`thumbnail phases — libvips threads ${sharp.concurrency()}, median CPU ms of ${REPEAT} runs`);
  const rows: Array<Record<string, string>> = [];
  for (const img of await phonePhotos()) rows.push(await phases(img, { width: 256, height: 256 }));
  for (const img of await smallImages()) rows.push(await phases(img, { width: 200, height: 150 }));
  console.table(rows);
}

await main();
