/**
 * The antivirus route streams the upload into clamd while it arrives: these tests drive a real
 * files server with a raw HTTP client (so they choose when bytes arrive, stop, or never come) and
 * watch the real clamd's open connections through /proc.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readlink } from "node:fs/promises";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { EICAR, LOUPE_MARKER, startTestClamd } from "../helpers/clamd.ts";
import {
  postFile,
  startFilesServer,
  type TestFilesServer,
  waitForNoLeftovers,
} from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

/** clamd started for this size gets a StreamMaxLength of 21 MiB (see managed.ts). */
const CLAMD_LIMIT = 20_000_000;
const MAX_FILE_SIZE = 40_000_000;
const BOUNDARY = "LoupeStreamBoundary";

type TestClamd = Awaited<ReturnType<typeof startTestClamd>>;

/** Sockets clamd holds open (its listening socket and one per client connection). */
async function clamdSockets(clamd: TestClamd): Promise<number> {
  const fds = await readdir(`/proc/${clamd.pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${clamd.pid}/fd/${fd}`).catch(() => "")));
  return targets.filter((t) => t.startsWith("socket:")).length;
}

/**
 * clamd's sockets with no client: the fewest seen over a second after it started (the readiness
 * check's connection may still be open at the first look, which made a closed session read as one
 * socket short of "idle" on a loaded machine).
 */
async function idleSocketsOf(clamd: TestClamd): Promise<number> {
  let fewest = await clamdSockets(clamd);
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 25));
    fewest = Math.min(fewest, await clamdSockets(clamd));
  }
  return fewest;
}

/** Polls until `check` holds (a liveness bound, not a timing assertion); returns the last value. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, boundMs = 15_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  return value;
}

/** A multipart upload written by hand on a raw socket: the test decides when each byte goes. */
class RawUpload {
  readonly socket: net.Socket;
  private readonly received: Promise<string>;
  readonly tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

  constructor(server: TestFilesServer, fileLength: number, filename = "stream.bin") {
    const url = new URL(`${server.url}/analyzer/antivirus`);
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
        "Content-Type: application/octet-stream\r\n\r\n",
    );
    const length = head.length + fileLength + this.tail.length;
    this.socket = net.connect(Number(url.port), url.hostname);
    this.socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`,
    );
    this.socket.write(head);
    this.received = new Promise((resolve) => {
      const chunks: Buffer[] = [];
      this.socket.on("data", (d: Buffer) => chunks.push(d));
      this.socket.on("error", () => undefined);
      this.socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
  }

  send(bytes: Buffer | string): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()));
  }

  /** Sends the closing boundary and reads the answer. */
  async finish(): Promise<{ status: number; body: Json }> {
    await this.send(this.tail);
    return this.answer();
  }

  /** The answer the server gave (or an empty one if it closed without answering). */
  async answer(): Promise<{ status: number; body: Json }> {
    const raw = await this.received;
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
    const text = raw.slice(raw.indexOf("\r\n\r\n") + 4);
    return { status, body: text ? JSON.parse(text) : {} };
  }

  closed(): Promise<string> {
    return this.received;
  }
}

const filesServerOn = (clamd: TestClamd, env: Record<string, string>) =>
  startFilesServer({ CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "", ...env });

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("antivirus streamed to clamd while the upload arrives", {
  skip: skipUnlessCommands("clamd"),
}, () => {
  let clamd: TestClamd;
  let server: TestFilesServer;
  let idleSockets: number;
  before(async () => {
    clamd = await startTestClamd(CLAMD_LIMIT);
    server = await filesServerOn(clamd, { MAX_FILE_SIZE: String(MAX_FILE_SIZE), SCAN_TIMEOUT_MS: "30000" });
    idleSockets = await idleSocketsOf(clamd);
  });
  after(async () => {
    await server?.close();
    await clamd?.stop();
  });

  const entryOf = async (bytes: Buffer | string, name = "sample.bin") => {
    const res = await postFile(`${server.url}/analyzer/antivirus`, bytes, name);
    assert.equal(res.status, 200);
    return (await json(res)).processors.antivirus;
  };
  const clamdIdle = () =>
    eventually(
      () => clamdSockets(clamd),
      (n) => n === idleSockets,
    );

  it("opens the clamd session before the upload is complete, then answers the verdict", async () => {
    const upload = new RawUpload(server, EICAR.length + 4, "eicar.com");
    await upload.send(EICAR.subarray(0, 10));
    const during = await eventually(
      () => clamdSockets(clamd),
      (n) => n > idleSockets,
    );
    assert.equal(during, idleSockets + 1, "clamd holds one connection while the upload is still coming");
    await upload.send(Buffer.concat([EICAR.subarray(10), Buffer.from("\r\n\r\n")]));
    const { status, body } = await upload.finish();
    assert.equal(status, 200);
    assert.equal(body.processors.antivirus.analysis.infected, true);
    assert.equal(body.processors.antivirus.analysis.filename, "eicar.com");
  });

  it("detects EICAR and reports a clean file as clean, in the same shape as before", async () => {
    const infected = await entryOf(EICAR, "eicar.com");
    assert.equal(infected.success, true);
    assert.equal(infected.analysis.description, "Loupe.Test.EICAR.UNOFFICIAL");
    assert.equal(infected.analysis.extra.sha256, createHash("sha256").update(EICAR).digest("hex"));
    assert.deepEqual(await entryOf("nothing to see here", "clean.txt"), {
      success: true,
      processor_name: "antivirus",
      processor_url: "/analyzer/antivirus",
      processor_description:
        "Antivirus scan by ClamAV (clamd, INSTREAM) of the file and of every child Loupe takes out of it (archive members, also password-protected ones, attachments, embedded objects).",
      error: null,
      error_short: null,
      metadata: null,
      analysis: { infected: false, description: null, filename: "clean.txt", extra: null },
    });
  });

  it("streams a large file, finds the signature at its end, and hashes all of it", async () => {
    const big = Buffer.alloc(CLAMD_LIMIT - 2000);
    for (let i = 0; i < big.length; i += 4096) big[i] = i & 0xff;
    LOUPE_MARKER.copy(big, big.length - 1000);
    const entry = await entryOf(big, "big.bin");
    assert.equal(entry.success, true, entry.error);
    assert.equal(entry.analysis.description, "Loupe.Test.Marker.UNOFFICIAL");
    assert.equal(entry.analysis.extra.sha256, createHash("sha256").update(big).digest("hex"));
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("ends the clamd session and the temp file when the client aborts mid-upload; the next request works", async () => {
    const upload = new RawUpload(server, 5_000_000);
    await upload.send(Buffer.alloc(300_000, 0x42));
    await eventually(
      () => clamdSockets(clamd),
      (n) => n > idleSockets,
    );
    upload.socket.destroy();
    assert.equal(await clamdIdle(), idleSockets, "the clamd connection was closed");
    assert.deepEqual(await waitForNoLeftovers(server, 15_000), []);
    assert.equal((await entryOf(EICAR)).analysis.infected, true);
  });

  it("reports a file over clamd's StreamMaxLength as too_large in the entry, as before", async () => {
    const entry = await entryOf(Buffer.alloc(CLAMD_LIMIT + 3_000_000, 2), "over.bin");
    assert.equal(entry.success, false);
    assert.equal(entry.error_short, "too_large");
    assert.match(entry.error, /StreamMaxLength/);
    assert.equal(await clamdIdle(), idleSockets);
  });

  it("scans a file dripped in small pieces by a slow client", async () => {
    const upload = new RawUpload(server, EICAR.length, "slow.com");
    for (let i = 0; i < EICAR.length; i += 8) {
      await upload.send(EICAR.subarray(i, i + 8));
      await pause(40);
    }
    const { status, body } = await upload.finish();
    assert.equal(status, 200);
    assert.equal(body.processors.antivirus.analysis.description, "Loupe.Test.EICAR.UNOFFICIAL");
  });
});

describe("limits while streaming: size, slow and silent clients", {
  skip: skipUnlessCommands("clamd"),
}, () => {
  let clamd: TestClamd;
  let idleSockets: number;
  const servers: TestFilesServer[] = [];
  const serverWith = async (env: Record<string, string>) => {
    const server = await filesServerOn(clamd, env);
    servers.push(server);
    return server;
  };
  before(async () => {
    clamd = await startTestClamd(CLAMD_LIMIT);
    idleSockets = await idleSocketsOf(clamd);
  });
  after(async () => {
    for (const server of servers) await server.close();
    await clamd?.stop();
  });

  it("answers 400 file_too_large past MAX_FILE_SIZE and closes the clamd session", async () => {
    const limit = 1_000_000;
    const server = await serverWith({ MAX_FILE_SIZE: String(limit) });
    const res = await postFile(`${server.url}/analyzer/antivirus`, Buffer.alloc(limit + 500_000, 1));
    assert.equal(res.status, 400);
    const body = await json(res);
    assert.equal(body.code, "file_too_large");
    assert.match(body.detail, new RegExp(`${limit} bytes`));
    assert.equal(
      await eventually(
        () => clamdSockets(clamd),
        (n) => n === idleSockets,
      ),
      idleSockets,
    );
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("past CLAMD_STREAM_TIMEOUT_MS the clamd session ends, the upload is still read, and the entry says timeout", async () => {
    const server = await serverWith({ CLAMD_STREAM_TIMEOUT_MS: "1000" });
    const length = 2000;
    const upload = new RawUpload(server, length);
    // The clamd session opens with the file's first byte.
    await upload.send("x");
    await eventually(
      () => clamdSockets(clamd),
      (n) => n > idleSockets,
    );
    let sent = 1;
    // One byte at a time, well inside the body idle timeout, until clamd's connection is gone.
    while (sent < length - 1 && (await clamdSockets(clamd)) > idleSockets) {
      await upload.send("x");
      sent++;
      await pause(50);
    }
    assert.ok(sent < length - 1, "the clamd connection ended while the upload was still coming");
    await upload.send("x".repeat(length - sent));
    const { status, body } = await upload.finish();
    assert.equal(status, 200);
    const entry = body.processors.antivirus;
    assert.equal(entry.success, false);
    assert.equal(entry.error_short, "timeout");
    assert.match(entry.error, /CLAMD_STREAM_TIMEOUT_MS/);
  });

  it("a client gone silent past HTTP_BODY_IDLE_TIMEOUT_MS is cut off and its clamd session ended", async () => {
    const server = await serverWith({ CLAMD_STREAM_TIMEOUT_MS: "0", HTTP_BODY_IDLE_TIMEOUT_MS: "700" });
    const upload = new RawUpload(server, 1000);
    await upload.send(Buffer.alloc(100, 3));
    await eventually(
      () => clamdSockets(clamd),
      (n) => n > idleSockets,
    );
    await upload.closed();
    assert.equal(
      await eventually(
        () => clamdSockets(clamd),
        (n) => n === idleSockets,
      ),
      idleSockets,
    );
    assert.deepEqual(await waitForNoLeftovers(server, 15_000), []);
    const res = await postFile(`${server.url}/analyzer/antivirus`, EICAR);
    assert.equal((await json(res)).processors.antivirus.analysis.infected, true);
  });
});
