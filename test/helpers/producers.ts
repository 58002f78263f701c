/**
 * Real producers for the extractor's image and media fixtures: exiftool writes EXIF/XMP/IPTC/GPS
 * into images sharp makes, ffmpeg writes tagged audio and video. Each call works in its own temp
 * folder, removed afterwards.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 60_000;

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-producer-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes tags with exiftool, e.g. {"EXIF:Make": "LoupeCam", "XMP-dc:Subject": ["a", "b"]}. */
export function exiftoolTag(
  image: Buffer,
  extension: string,
  tags: Record<string, string | number | string[]>,
): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, `image.${extension}`);
    await writeFile(file, image);
    const args = ["-q", "-q", "-overwrite_original"];
    for (const [tag, value] of Object.entries(tags)) {
      if (Array.isArray(value)) for (const v of value) args.push(`-${tag}+=${v}`);
      else args.push(`-${tag}=${value}`);
    }
    await run("exiftool", [...args, file], { timeout: TOOL_TIMEOUT_MS });
    return readFile(file);
  });
}

/** HEIC (HEVC in HEIF) from a PNG, by libheif's heif-enc: sharp's own libheif cannot encode HEVC. */
export function heifEncode(png: Buffer): Promise<Buffer> {
  return inTempDir(async (dir) => {
    await writeFile(path.join(dir, "in.png"), png);
    await run("heif-enc", ["-q", "60", "-o", path.join(dir, "out.heic"), path.join(dir, "in.png")], {
      timeout: TOOL_TIMEOUT_MS,
    });
    return readFile(path.join(dir, "out.heic"));
  });
}

export interface MediaTags {
  title: string;
  artist: string;
  album: string;
  date: string;
  genre: string;
  comment: string;
}

/**
 * A 2-second 440 Hz tone (22.05 kHz mono) in the container the extension names, tagged by
 * ffmpeg; with `video`, a 64×48 test pattern too (for MKV/MP4).
 */
export function ffmpegMedia(extension: string, tags: MediaTags, video = false): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, `media.${extension}`);
    const args = [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:sample_rate=22050:duration=2",
    ];
    if (video) args.push("-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=2", "-c:v", "mpeg4");
    args.push("-ac", "1");
    for (const [k, v] of Object.entries(tags)) args.push("-metadata", `${k}=${v}`);
    await run("ffmpeg", [...args, file], { timeout: TOOL_TIMEOUT_MS });
    return readFile(file);
  });
}

/** Another program's reading of the same file, as an oracle: `pdfinfo -isodates`. */
export async function pdfinfo(pdf: Buffer): Promise<Record<string, string>> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, "doc.pdf");
    await writeFile(file, pdf);
    const { stdout } = await run("pdfinfo", ["-isodates", file], { timeout: TOOL_TIMEOUT_MS });
    const info: Record<string, string> = {};
    for (const line of stdout.split("\n")) {
      const m = /^([^:]+):\s*(.*)$/.exec(line);
      if (m?.[1] && m[2] !== undefined) info[m[1].trim()] = m[2].trim();
    }
    return info;
  });
}
