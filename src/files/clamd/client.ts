/**
 * A clamd client over its documented protocol: `zPING`, `zVERSION`, and `zINSTREAM` with the file
 * sent in length-prefixed chunks (4-byte big-endian size, then the bytes; a zero size ends it).
 */
import { createReadStream } from "node:fs";
import net from "node:net";

export type ClamdAddress = { socket: string } | { host: string; port: number };

export type ScanVerdict = { infected: false } | { infected: true; signature: string };

export class ClamdError extends Error {
  readonly short: "engine_unavailable" | "timeout" | "engine_error" | "too_large";
  constructor(short: ClamdError["short"], message: string) {
    super(message);
    this.name = "ClamdError";
    this.short = short;
  }
}

const CHUNK = 1024 * 1024;

/** Says how clamd is reached without naming where: health and errors are read by any client. */
export function describeAddress(a: ClamdAddress): string {
  return "socket" in a ? "local socket" : "TCP";
}

/** Sends one command and reads the NUL-terminated reply; streams `file` first for INSTREAM. */
function exchange(address: ClamdAddress, command: string, timeoutMs: number, file?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = "socket" in address ? net.connect(address.socket) : net.connect(address.port, address.host);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err: Error | null, reply?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      if (err) reject(err);
      else resolve(reply ?? "");
    };
    const timer = setTimeout(
      () => finish(new ClamdError("timeout", `clamd did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    conn.on("error", (err: NodeJS.ErrnoException) => {
      const unreachable = ["ENOENT", "ECONNREFUSED", "EACCES", "ENOTSOCK", "EHOSTUNREACH"].includes(
        err.code ?? "",
      );
      finish(
        new ClamdError(
          unreachable ? "engine_unavailable" : "engine_error",
          unreachable
            ? `clamd is not reachable at ${describeAddress(address)} (${err.code})`
            : `clamd connection failed: ${err.message}`,
        ),
      );
    });
    conn.on("data", (d: Buffer) => {
      chunks.push(d);
      const all = Buffer.concat(chunks);
      const end = all.indexOf(0);
      if (end >= 0) finish(null, all.subarray(0, end).toString("utf8").trim());
    });
    conn.on("end", () => finish(null, Buffer.concat(chunks).toString("utf8").replace(/\0/g, "").trim()));
    conn.on("connect", () => {
      conn.write(`z${command}\0`);
      if (file)
        void streamFile(conn, file).catch((err: Error) =>
          finish(new ClamdError("engine_error", err.message)),
        );
    });
  });
}

async function streamFile(conn: net.Socket, file: string): Promise<void> {
  const header = Buffer.alloc(4);
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
    if (conn.destroyed) return;
    header.writeUInt32BE(chunk.length);
    conn.write(header);
    if (!conn.write(chunk)) await new Promise((r) => conn.once("drain", r));
  }
  if (!conn.destroyed) conn.write(Buffer.alloc(4));
}

export async function ping(address: ClamdAddress, timeoutMs: number): Promise<boolean> {
  return (await exchange(address, "PING", timeoutMs)) === "PONG";
}

/** "ClamAV 1.4.6/27000/Sun Nov 22 …" → engine and database versions. */
export async function version(
  address: ClamdAddress,
  timeoutMs: number,
): Promise<{ engine: string; database: string | null }> {
  const reply = await exchange(address, "VERSION", timeoutMs);
  const [engine = reply, database = null] = reply.split("/");
  return { engine, database };
}

export async function scanFile(address: ClamdAddress, file: string, timeoutMs: number): Promise<ScanVerdict> {
  const reply = await exchange(address, "INSTREAM", timeoutMs, file);
  return parseScanReply(reply);
}

/** `stream: OK`, `stream: <name> FOUND`, or `… ERROR`. */
export function parseScanReply(reply: string): ScanVerdict {
  const body = reply.replace(/^stream:\s*/, "");
  if (body === "OK") return { infected: false };
  const found = /^(.*) FOUND$/.exec(body);
  if (found?.[1]) return { infected: true, signature: found[1] };
  if (/size limit exceeded/i.test(body)) {
    throw new ClamdError(
      "too_large",
      `clamd refused the file: it is larger than its StreamMaxLength (${body})`,
    );
  }
  throw new ClamdError("engine_error", `clamd answered: ${body || "nothing"}`);
}
