/**
 * A multipart upload built whole in memory, once: sent as it is (undici's `request`), it costs its
 * client nothing while it goes out. Encoding and copying a 48 MB file on every send (FormData,
 * fetch) held the client's event loop for 2–6 s on a loaded machine: long enough for the
 * service's body idle limit to close the upload.
 */

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
