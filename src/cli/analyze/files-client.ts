/**
 * One file through a files service: the upload to `POST /analyzer/all` (with progress), the
 * answer read into a report, and a thumbnail from `POST /converter/thumbnail` when asked.
 */
import { createHash } from "node:crypto";
import { type FileHandle, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { InputError, openInput } from "./input.ts";
import { progressFor } from "./progress.ts";
import { type AllAnswer, type FileReport, failedReport, reportOf } from "./report.ts";
import { type Answer, uploadFile } from "./upload.ts";

export interface FilesTarget {
  url: string;
  fields: Record<string, string>;
  timeoutMs: number;
  /** Folder for image thumbnails, when asked. */
  thumbnails?: string;
}

/** What went wrong talking to the service, as a report's error. */
function serviceError(
  target: FilesTarget,
  err: unknown,
  signal: AbortSignal,
): { code: string; detail: string } {
  if (signal.aborted) return { code: "timeout", detail: `no answer within ${target.timeoutMs} ms` };
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EHOSTUNREACH") {
    return {
      code: "service_unreachable",
      detail: `cannot reach the files service at ${target.url} (start it with ./loupe files serve, or use --local)`,
    };
  }
  return { code: "service_error", detail: `the files service at ${target.url}: ${(err as Error).message}` };
}

function refusal(answer: Answer): { code: string; detail: string } {
  try {
    const body = JSON.parse(answer.body.toString("utf8")) as { code?: string; detail?: string };
    return { code: body.code ?? `http_${answer.status}`, detail: body.detail ?? `HTTP ${answer.status}` };
  } catch {
    return { code: `http_${answer.status}`, detail: `the files service answered HTTP ${answer.status}` };
  }
}

/**
 * Saves the thumbnail as `<sha256 of the local file>.png` in the folder: the name comes from local
 * data only (never from the service's answer, whose `sha256` could be `../../x`), so it stays inside.
 */
async function saveThumbnail(
  target: FilesTarget,
  report: FileReport,
  handle: FileHandle,
  bytes: Answer,
): Promise<void> {
  if (!target.thumbnails || bytes.status !== 200) return;
  const hash = createHash("sha256");
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false }))
    hash.update(chunk as Buffer);
  await mkdir(target.thumbnails, { recursive: true });
  report.thumbnail = path.join(target.thumbnails, `${hash.digest("hex")}.png`);
  await writeFile(report.thumbnail, bytes.body);
}

export async function analyzeWithService(target: FilesTarget, file: string): Promise<FileReport> {
  let opened: Awaited<ReturnType<typeof openInput>>;
  try {
    opened = await openInput(file);
  } catch (err) {
    if (err instanceof InputError)
      return failedReport(file, path.basename(file), null, err.code, err.message);
    throw err;
  }
  const { input, handle } = opened;
  const signal = AbortSignal.timeout(target.timeoutMs);
  const progress = progressFor(input.name, input.size);
  try {
    const upload = (url: string, fields: Record<string, string>, onSent?: (n: number) => void) =>
      uploadFile({
        url: new URL(url),
        handle,
        filename: input.name,
        size: input.size,
        fields,
        signal,
        onSent,
      });
    const answer = await upload(`${target.url}/analyzer/all`, target.fields, (sent) => {
      progress.sent(sent);
      if (sent === input.size) progress.processing();
    });
    if (input.size === 0) progress.processing();
    if (answer.status !== 200) {
      const { code, detail } = refusal(answer);
      progress.end("refused");
      return failedReport(file, input.name, input.size, code, detail);
    }
    const report = reportOf(
      file,
      input.name,
      input.size,
      JSON.parse(answer.body.toString("utf8")) as AllAnswer,
    );
    if (target.thumbnails && report.type?.startsWith("image/")) {
      await saveThumbnail(target, report, handle, await upload(`${target.url}/converter/thumbnail`, {}));
    }
    progress.end(report.verdict.malicious ? "MALICIOUS" : "done");
    return report;
  } catch (err) {
    progress.end("failed");
    const { code, detail } = serviceError(target, err, signal);
    return failedReport(file, input.name, input.size, code, detail);
  } finally {
    await handle.close();
  }
}
