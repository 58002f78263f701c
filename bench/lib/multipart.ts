/** Ready-made multipart bodies and a low-overhead client, so benchmarks measure the server, not the client. */
import { readFile } from "node:fs/promises";
import { request } from "undici";

export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

export function multipartBody(
  file: Buffer,
  filename: string,
  fields: Record<string, string> = {},
): MultipartBody {
  const boundary = `----loupebench${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

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
