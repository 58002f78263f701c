/** Ready-made multipart bodies and a low-overhead client, so benchmarks measure the server, not the client. */
import { readFile } from "node:fs/promises";
import { request } from "undici";

// Built by a test helper (the soak's clients send them too); benchmarks may use test helpers, never the reverse.
import { type MultipartBody, multipartBody } from "../../test/helpers/multipart-body.ts";

export { type MultipartBody, multipartBody };

export async function multipartFromFile(
  path: string,
  fields: Record<string, string> = {},
): Promise<MultipartBody> {
  return multipartBody(await readFile(path), "bench.bin", fields);
}

/** POSTs a prepared body; returns the parsed JSON (or raw bytes for non-JSON answers). */
export async function postPrepared(url: string, upload: MultipartBody): Promise<unknown> {
  const res = await request(url, {
    method: "POST",
    body: upload.body,
    headers: { "content-type": upload.contentType },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  return res.headers["content-type"]?.toString().includes("json") ? JSON.parse(text) : text;
}
