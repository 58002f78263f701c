/**
 * Intel's calls to the files service (FILES_URL): a health check before an upload is accepted,
 * `POST /analyzer/all` with the kept file streamed from disk, and `POST /converter/thumbnail` for
 * an image. Each call is bounded in time, and the answer in size (a hostile or broken files
 * service cannot fill intel's memory).
 */
import { openAsBlob } from "node:fs";
import { HttpError } from "../../common/errors.ts";

/** A failure of the files call, with a short code kept as the analysis' reason. */
export class FilesCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "FilesCallError";
    this.code = code;
  }
}

const HOW_TO =
  "Set FILES_URL to the files service's URL (e.g. http://127.0.0.1:8000, started by ./loupe up or ./loupe files serve) and restart intel.";

/** 503 with a code and how to fix it, when analyses cannot be accepted now. */
export function filesUnavailable(url: string | null, why?: string): HttpError {
  if (url === null)
    return new HttpError(
      503,
      "files_service_not_configured",
      `No files service is configured (FILES_URL=none), so files cannot be analysed. ${HOW_TO}`,
    );
  return new HttpError(
    503,
    "files_service_unavailable",
    `The files service at ${url} did not answer (${why ?? "no answer"}). Start it, or ${HOW_TO.charAt(0).toLowerCase()}${HOW_TO.slice(1)}`,
  );
}

/** Throws a 503 unless the files service answers its health check within `timeoutMs`. */
export async function probeFiles(url: string | null, timeoutMs: number): Promise<void> {
  if (url === null) throw filesUnavailable(url);
  try {
    const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (res.status >= 500) throw new Error(`HTTP ${res.status}`);
  } catch (err) {
    throw filesUnavailable(url, (err as Error).message);
  }
}

export interface FilesCall {
  url: string;
  filePath: string;
  name: string;
  /** Form fields as the files service reads them (`passwords`, `rules`). */
  fields: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  /** Aborts the call (the process is closing). */
  signal: AbortSignal;
}

/** `/analyzer/all`'s answer as text (JSON); throws FilesCallError with a reason otherwise. */
export async function analyseWithFiles(call: FilesCall): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(call.fields)) form.append(k, v);
  form.append("file", await openAsBlob(call.filePath), call.name || "upload");
  let res: Response;
  try {
    res = await fetch(`${call.url}/analyzer/all`, {
      method: "POST",
      body: form,
      signal: AbortSignal.any([AbortSignal.timeout(call.timeoutMs), call.signal]),
    });
  } catch (err) {
    const timeout = (err as Error).name === "TimeoutError";
    throw new FilesCallError(
      timeout ? "timeout" : "files_service_unavailable",
      timeout
        ? `the files service did not answer within ${call.timeoutMs} ms`
        : `the files service at ${call.url} could not be reached: ${(err as Error).message}`,
    );
  }
  const body = await readCapped(res, call.maxBytes);
  if (res.status !== 200) throw new FilesCallError("files_service_refused", refusal(res.status, body));
  return body;
}

export interface ThumbnailCall {
  url: string;
  filePath: string;
  name: string;
  /** The box the thumbnail fits in, in pixels a side (its ratio kept). */
  side: number;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
}

/** `/converter/thumbnail`'s PNG; throws FilesCallError with a reason otherwise. */
export async function thumbnailWithFiles(call: ThumbnailCall): Promise<Buffer> {
  const form = new FormData();
  form.append("file", await openAsBlob(call.filePath), call.name || "upload");
  const query = new URLSearchParams({
    width: String(call.side),
    height: String(call.side),
    strategy: "contain",
  });
  let res: Response;
  try {
    res = await fetch(`${call.url}/converter/thumbnail?${query}`, {
      method: "POST",
      body: form,
      signal: AbortSignal.any([AbortSignal.timeout(call.timeoutMs), call.signal]),
    });
  } catch (err) {
    throw new FilesCallError("files_service_unavailable", (err as Error).message);
  }
  const body = await readCappedBytes(
    res,
    call.maxBytes,
    "thumbnail_too_large",
    "INTEL_ANALYSIS_THUMBNAIL_MAX_BYTES",
  );
  if (res.status !== 200 || res.headers.get("content-type") !== "image/png")
    throw new FilesCallError("files_service_refused", refusal(res.status, body.toString("utf8")));
  return body;
}

/** The files service's own words on a refusal (`detail`), or its status. */
function refusal(status: number, body: string): string {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown; code?: unknown }).detail;
    if (typeof detail === "string") return `the files service refused the file (HTTP ${status}): ${detail}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return `the files service answered HTTP ${status}`;
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const bytes = await readCappedBytes(res, maxBytes, "result_too_large", "INTEL_ANALYSIS_RESULT_MAX_BYTES");
  return bytes.toString("utf8");
}

async function readCappedBytes(
  res: Response,
  maxBytes: number,
  code: string,
  setting: string,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    // Throwing out of the loop cancels the stream: the rest is never read.
    if (size > maxBytes)
      throw new FilesCallError(
        code,
        `the files service's answer is larger than ${maxBytes} bytes (${setting})`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
