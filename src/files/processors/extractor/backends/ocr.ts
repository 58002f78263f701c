/**
 * Optional OCR (`OCR=1`) with Debian's tesseract, run as a child process with a time limit:
 * images get their text; PDF pages without a text layer are rendered with pdftoppm first.
 * Temp files live in a folder of their own inside the upload's private (0700) folder and are
 * removed when the extraction ends.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import type { Extracted, OcrOptions } from "../result.ts";

const run = promisify(execFile);
const LANGUAGES = /^[A-Za-z0-9_]+(?:\+[A-Za-z0-9_]+)*$/;
const RENDER_DPI = "200";

async function withTempDir<T>(opts: OcrOptions, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(opts.tmpDir, "ocr-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function tesseract(image: string, opts: OcrOptions): Promise<string> {
  if (!LANGUAGES.test(opts.languages))
    throw new Error(`FILES_OCR_LANGUAGES "${opts.languages}" is not a list like eng+fra`);
  const { stdout } = await run("tesseract", [image, "stdout", "-l", opts.languages], {
    timeout: opts.timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, OMP_THREAD_LIMIT: "1" }, // one core per page: the service shares the machine
  });
  // One line break between blocks: a blank line separates PDF pages in the content.
  return stdout
    .replace(/\f/g, "\n")
    .replace(/\n\s*\n/g, "\n")
    .trim();
}

const reason = (err: unknown) => {
  const e = err as NodeJS.ErrnoException & { killed?: boolean; stderr?: string };
  if (e.code === "ENOENT") return `${(e as { path?: string }).path ?? "a tool"} is not installed`;
  if (e.killed) return "timeout";
  return (e.stderr?.trim() || e.message || String(err)).split("\n")[0] ?? "failed";
};

function mark(result: Extracted, ocr: Record<string, unknown>): Extracted {
  result.extra.loupe = { ...(result.extra.loupe ?? {}), ...ocr };
  return result;
}

/** The image's own metadata, plus the text tesseract reads in it. */
export async function withImageOcr(
  bytes: Buffer,
  opts: OcrOptions | undefined,
  extract: (bytes: Buffer) => Promise<Extracted>,
): Promise<Extracted> {
  const result = await extract(bytes);
  if (!opts) return result;
  try {
    const text = await withTempDir(opts, async (dir) => {
      const png = path.join(dir, "image.png");
      // Flattened greyscale PNG: tesseract reads it whatever the upload's format (WebP, HEIC, alpha).
      await sharp(bytes).flatten({ background: "#ffffff" }).greyscale().png().toFile(png);
      return tesseract(png, opts);
    });
    result.text = [result.text, text].filter(Boolean).join("\n\n");
    return mark(result, { ocr: "true" });
  } catch (err) {
    return mark(result, { ocr_error: reason(err) });
  }
}

/**
 * Runs a PDF extraction that calls `ocrPage` for each page without text. The PDF is written to
 * the temp folder first: the extraction takes its bytes over.
 */
export async function withPdfOcr(
  bytes: Buffer,
  opts: OcrOptions | undefined,
  extract: (ocrPage?: (page: number) => Promise<string>) => Promise<Extracted>,
): Promise<Extracted> {
  if (!opts) return extract();
  return withTempDir(opts, async (dir) => {
    const pdf = path.join(dir, "document.pdf");
    await writeFile(pdf, bytes);
    const done: number[] = [];
    let skipped = 0;
    let error: string | undefined;
    const ocrPage = async (page: number) => {
      if (error) return "";
      if (done.length >= opts.maxPages) {
        skipped++;
        return "";
      }
      try {
        const prefix = path.join(dir, `page-${page}`);
        await run(
          "pdftoppm",
          [
            "-r",
            RENDER_DPI,
            "-gray",
            "-png",
            "-singlefile",
            "-f",
            String(page),
            "-l",
            String(page),
            pdf,
            prefix,
          ],
          { timeout: opts.timeoutMs, killSignal: "SIGKILL" },
        );
        const text = await tesseract(`${prefix}.png`, opts);
        await rm(`${prefix}.png`, { force: true });
        done.push(page);
        return text;
      } catch (err) {
        error = reason(err);
        return "";
      }
    };
    const result = await extract(ocrPage);
    if (done.length) {
      result.extra.pdf = { ...(result.extra.pdf ?? {}), ocr_pages: done };
      mark(result, { ocr: "true" });
    }
    if (skipped) mark(result, { ocr_skipped_pages: skipped });
    if (error) mark(result, { ocr_error: error });
    return result;
  });
}

/** Whether tesseract can run here (shown by `GET /` when OCR is on). */
export async function ocrEngine(): Promise<{ ready: boolean; version?: string; detail?: string }> {
  try {
    const { stdout, stderr } = await run("tesseract", ["--version"], { timeout: 10_000 });
    const version = /tesseract\s+(\S+)/i.exec(`${stdout}\n${stderr}`)?.[1];
    return { ready: true, ...(version ? { version } : {}) };
  } catch (err) {
    return { ready: false, detail: reason(err) };
  }
}
