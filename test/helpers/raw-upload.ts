/**
 * Uploads written by hand on a socket, for clients that misbehave: a multipart head announcing a
 * body of any length (the test then sends less, more, or nothing of it).
 */
import net from "node:net";

export const RAW_BOUNDARY = "RawUpload";

/** What closes the body after the file's bytes. */
export const MULTIPART_END = `\r\n--${RAW_BOUNDARY}--\r\n`;

/** The body up to the file's bytes: the text `fields`, then the head of the file part. */
function bodyStart(fields: Record<string, string>): string {
  const parts = Object.entries(fields)
    .map(([k, v]) => `--${RAW_BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join("");
  return `${parts}--${RAW_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`;
}

/**
 * The start of a multipart POST to `route` whose whole body is announced as `length` bytes, up to
 * the file's bytes (the caller sends less, more, or nothing of them).
 */
export function multipartHead(route: string, length: number, fields: Record<string, string>): string {
  return (
    `POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${RAW_BOUNDARY}\r\n` +
    `Content-Length: ${length}\r\n\r\n${bodyStart(fields)}`
  );
}

/** The length of a whole body of `fields` and a file of `fileBytes`, MULTIPART_END included. */
export function multipartLength(fields: Record<string, string>, fileBytes: number): number {
  return Buffer.byteLength(bodyStart(fields)) + fileBytes + MULTIPART_END.length;
}

/** A socket to the service at `url`, from `localAddress` when given. */
export function connect(url: string, localAddress?: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(
      { port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) },
      () => resolve(socket),
    );
    socket.on("error", reject);
  });
}
