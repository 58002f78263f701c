/**
 * An INSTREAM scan as a Writable: each chunk written goes to clamd as it comes (4-byte big-endian
 * size, then the bytes), `end()` sends the zero size that asks for the verdict. Writes complete
 * only once clamd has taken the bytes, so a slow clamd slows the writer instead of filling memory.
 * Once the session is over (verdict, clamd refusing the stream, error, `destroy()`), further
 * writes are accepted and dropped: the writer may still be receiving an upload it must finish.
 */
import { Writable } from "node:stream";
import { type ClamdAddress, ClamdConnection, ClamdError } from "./connection.ts";

const PING_TIMEOUT_MS = 1500;

export type ScanVerdict = { infected: false } | { infected: true; signature: string };

export interface InstreamLimits {
  /** Longest wait on clamd (connecting, taking bytes, the verdict). */
  timeoutMs: number;
  /** Longest the connection may stay open while the bytes are still coming (0 = no limit). */
  streamTimeoutMs?: number;
}

export class InstreamSession extends Writable {
  /** The scan's verdict, or a ClamdError saying why there is none. */
  readonly verdict: Promise<ScanVerdict>;
  private readonly connection: ClamdConnection;
  private readonly streamTimer: NodeJS.Timeout | undefined;

  constructor(address: ClamdAddress, limits: InstreamLimits) {
    // Finishing the writes is not the end of the session: the verdict is still to come.
    super({ decodeStrings: true, autoDestroy: false });
    this.connection = new ClamdConnection(address, "INSTREAM", limits.timeoutMs);
    this.verdict = this.connection.reply.then(parseScanReply, (err) => explainClosed(address, err));
    this.verdict.catch(() => undefined); // read by the caller; never an unhandled rejection
    const streamMs = limits.streamTimeoutMs ?? 0;
    if (streamMs > 0) {
      this.streamTimer = setTimeout(
        () =>
          this.connection.abort(
            new ClamdError(
              "timeout",
              `The upload took longer than ${streamMs} ms (FILES_CLAMD_STREAM_TIMEOUT_MS) to stream to clamd; the scan was stopped.`,
            ),
          ),
        streamMs,
      );
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.connection.closed) {
      done();
      return;
    }
    const size = Buffer.allocUnsafe(4);
    size.writeUInt32BE(chunk.length);
    this.connection.write([size, chunk]).then(() => done(), done);
  }

  override _final(done: (err?: Error | null) => void): void {
    clearTimeout(this.streamTimer);
    if (this.connection.closed) {
      done();
      return;
    }
    void this.connection.write([Buffer.alloc(4)]);
    void this.connection.awaitReply();
    done();
  }

  /** Ends the clamd session (the upload failed or was abandoned); never emits 'error'. */
  override _destroy(_err: Error | null, done: (err?: Error | null) => void): void {
    clearTimeout(this.streamTimer);
    this.connection.abort(new ClamdError("engine_error", "The scan was abandoned before its end."));
    done();
  }
}

/**
 * clamd answers "INSTREAM size limit exceeded" and closes the connection; a write racing that
 * close fails (EPIPE) and the answer is lost with the socket. A clamd that still answers PING
 * closed on purpose: the file was over its StreamMaxLength.
 */
async function explainClosed(address: ClamdAddress, err: unknown): Promise<never> {
  const peerClosed = err instanceof ClamdError && (err.code === "EPIPE" || err.code === "ECONNRESET");
  if (!peerClosed) throw err;
  const alive = await new ClamdConnection(address, "PING", PING_TIMEOUT_MS)
    .awaitReply()
    .then((reply) => reply === "PONG")
    .catch(() => false);
  if (!alive) throw err;
  throw new ClamdError(
    "too_large",
    "clamd refused the file: it closed the stream before its end, as it does past its StreamMaxLength",
  );
}

/** `<subject>: OK`, `<subject>: <name> FOUND`, or `… ERROR`; the subject is `stream` or the scanned path. */
export function parseScanReply(reply: string, subject = "stream"): ScanVerdict {
  const prefix = `${subject}:`;
  const body = (reply.startsWith(prefix) ? reply.slice(prefix.length) : reply).trim();
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
