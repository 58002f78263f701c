/**
 * One command on one clamd connection: connect, send `z<COMMAND>\0`, read the NUL-terminated
 * reply. The time limit runs only while Loupe waits on clamd (connecting, clamd not taking the
 * bytes it is sent, the reply), never while a caller streaming a file waits for its own bytes.
 */
import net from "node:net";

export type ClamdAddress = ({ socket: string } | { host: string; port: number }) & {
  /**
   * clamd reads the files it is asked about itself (`SCAN <path>`) instead of being sent their
   * bytes: for a clamd on this machine that can read Loupe's temp folder and whose MaxFileSize is
   * above Loupe's (FILES_CLAMD_SCAN_PATHS).
   */
  scanPaths?: boolean;
  /**
   * The largest file asked about by path (FILES_MAX_FILE_SIZE, under clamd's MaxFileSize); a larger
   * one (a child taken out of an archive can be) is sent over INSTREAM, which refuses it past
   * StreamMaxLength, where SCAN would skip it and answer OK.
   */
  pathMaxBytes?: number;
};

export class ClamdError extends Error {
  readonly short: "engine_unavailable" | "timeout" | "engine_error" | "too_large";
  /** The socket error's code, when the connection failed. */
  readonly code: string | undefined;
  constructor(short: ClamdError["short"], message: string, code?: string) {
    super(message);
    this.name = "ClamdError";
    this.short = short;
    this.code = code;
  }
}

/** Says how clamd is reached without naming where: health and errors are read by any client. */
export function describeAddress(a: ClamdAddress): string {
  return "socket" in a ? "local socket" : "TCP";
}

const UNREACHABLE = new Set(["ENOENT", "ECONNREFUSED", "EACCES", "ENOTSOCK", "EHOSTUNREACH"]);

export class ClamdConnection {
  /** clamd's reply, or why there is none; settled once, and the socket is closed then. */
  readonly reply: Promise<string>;
  private readonly socket: net.Socket;
  private settle!: (err: Error | null, reply?: string) => void;
  private timer: NodeJS.Timeout | undefined;
  /** How many things Loupe is waiting on clamd for (connect, drain, reply): the clock runs while > 0. */
  private waits = 0;
  private settled = false;
  private awaitingReply = false;
  private readonly address: ClamdAddress;
  private readonly timeoutMs: number;

  constructor(address: ClamdAddress, command: string, timeoutMs: number) {
    this.address = address;
    this.timeoutMs = timeoutMs;
    this.reply = new Promise<string>((resolve, reject) => {
      this.settle = (err, reply) => {
        if (this.settled) return;
        this.settled = true;
        clearTimeout(this.timer);
        this.socket.destroy();
        if (err) reject(err);
        else resolve(reply ?? "");
      };
    });
    // Whoever holds the connection reads `reply`; a session ended early must not crash the process.
    this.reply.catch(() => undefined);
    this.socket = "socket" in address ? net.connect(address.socket) : net.connect(address.port, address.host);
    this.runClock();
    this.socket.once("connect", () => this.pauseClock());
    this.socket.on("error", (err: NodeJS.ErrnoException) => this.settle(this.describeError(err)));
    this.readReply();
    this.socket.write(`z${command}\0`);
  }

  get closed(): boolean {
    return this.settled;
  }

  /** Writes bytes; resolves once clamd has taken them (or the connection is over). */
  async write(chunks: Buffer[]): Promise<void> {
    if (this.settled) return;
    this.socket.cork();
    let accepted = true;
    for (const chunk of chunks) accepted = this.socket.write(chunk);
    this.socket.uncork();
    if (accepted) return;
    this.runClock();
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off("drain", done).off("close", done);
        resolve();
      };
      this.socket.once("drain", done).once("close", done);
    });
    this.pauseClock();
  }

  /** Everything is sent: from now on only clamd's reply is awaited. */
  awaitReply(): Promise<string> {
    if (!this.awaitingReply) {
      this.awaitingReply = true;
      this.runClock();
    }
    return this.reply;
  }

  abort(err: Error): void {
    this.settle(err);
  }

  private readReply(): void {
    const chunks: Buffer[] = [];
    this.socket.on("data", (d: Buffer) => {
      chunks.push(d);
      const all = Buffer.concat(chunks);
      const end = all.indexOf(0);
      if (end >= 0) this.settle(null, all.subarray(0, end).toString("utf8").trim());
    });
    this.socket.on("end", () =>
      this.settle(null, Buffer.concat(chunks).toString("utf8").replace(/\0/g, "").trim()),
    );
  }

  private runClock(): void {
    this.waits++;
    if (this.waits > 1 || this.settled) return;
    this.timer = setTimeout(
      () => this.settle(new ClamdError("timeout", `clamd did not answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
  }

  private pauseClock(): void {
    this.waits--;
    if (this.waits === 0) clearTimeout(this.timer);
  }

  private describeError(err: NodeJS.ErrnoException): ClamdError {
    if (UNREACHABLE.has(err.code ?? "")) {
      return new ClamdError(
        "engine_unavailable",
        `clamd is not reachable at ${describeAddress(this.address)} (${err.code})`,
      );
    }
    return new ClamdError("engine_error", `clamd connection failed: ${err.message}`, err.code);
  }
}
