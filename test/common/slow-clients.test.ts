/**
 * Slowloris on bodies, against both services as real processes: a client that trickles a body
 * (silent too long, or slow beyond the request bound) is disconnected within the documented bound
 * while other clients are served, clients hanging up mid-body cost nothing, and the same PID keeps
 * answering.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { readCommonConfig } from "../../src/common/config.ts";
import { createHttpServer } from "../../src/common/http.ts";
import { createLogger } from "../../src/common/logger.ts";
import { type IntelProcess, startIntelProcessWithKey } from "../helpers/intel-process.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

/** Low bounds keep the waits short; a byte every TRICKLE_MS stays far under the idle bound. */
const TIMEOUTS = { HTTP_BODY_IDLE_TIMEOUT_MS: "800", HTTP_REQUEST_TIMEOUT_MS: "2000" };
const TRICKLE_MS = 200;
/** Far past either bound (plus Node's one-second check): a socket still open then was never closed. */
const GIVE_UP_MS = 20_000;

/**
 * Opens a socket, sends `head` and then one body byte every `everyMs` until the server closes it.
 * Resolves true when the server closed the connection before GIVE_UP_MS.
 */
function trickle(url: string, head: string, everyMs: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(false), GIVE_UP_MS);
    const finish = (closedByServer: boolean) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve(closedByServer);
    };
    socket.on("connect", () => {
      socket.write(head);
      socket.write("{");
      timer = setInterval(() => socket.write(" "), everyMs);
    });
    socket.on("data", () => undefined);
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
  });
}

/** Sends the head and part of the body, then hangs up; resolves when the socket is closed. */
function partial(url: string, headText: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(headText);
      socket.end('--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nhalf a fi');
    });
    socket.on("data", () => undefined);
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
  });
}

function head(path: string, type: string, extra = ""): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: 100000\r\n${extra}\r\n`;
}

describe("slow clients (real processes)", () => {
  let files: RealProcess;
  let intel: IntelProcess;
  before(async () => {
    files = await startFilesProcess(TIMEOUTS);
    intel = await startIntelProcessWithKey({ ...TIMEOUTS, INTEL_CONNECTORS: "" });
  });
  after(async () => {
    await files?.close();
    await intel?.close();
  });

  it("files: closes a body that goes silent, and one trickled past the request bound, serving others meanwhile", async () => {
    const upload = head("/analyzer/extractor", "multipart/form-data; boundary=x");
    const silent = trickle(files.url, upload, 60_000);
    const slow = trickle(files.url, upload, TRICKLE_MS);
    const health = await fetch(`${files.url}/`);
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    assert.equal(await silent, true, "a silent body was never closed");
    assert.equal(await slow, true, "a trickled body was never closed");
    await Promise.all(Array.from({ length: 5 }, () => partial(files.url, upload)));
    await assertSurvived(files);
  });

  it("intel: the same for a JSON body on an authenticated route", async () => {
    const request = head("/api/request/", "application/json", `Authorization: Token ${intel.key}\r\n`);
    const silent = trickle(intel.url, request, 60_000);
    const slow = trickle(intel.url, request, TRICKLE_MS);
    const types = await intel.api("/api/types/");
    assert.equal(types.status, 200);
    await types.arrayBuffer();
    assert.equal(await silent, true, "a silent body was never closed");
    assert.equal(await slow, true, "a trickled body was never closed");
    await Promise.all(Array.from({ length: 5 }, () => partial(intel.url, request)));
    await assertSurvived(intel, () => intel.api("/api/types/"));
  });
});

describe("slow answers", () => {
  it("never cuts an answer that takes longer than the body-idle bound once the body is in", async () => {
    const common = readCommonConfig({ HTTP_BODY_IDLE_TIMEOUT_MS: "100" });
    const app = await createHttpServer({
      name: "test",
      version: "0",
      description: "",
      logger: createLogger("silent", "test"),
      specPath: "/openapi.json",
      docsPath: "/docs",
      rateLimitPerMinute: 0,
      timeouts: common.timeouts,
    });
    app.post("/slow", async (req) => {
      await new Promise((r) => setTimeout(r, 500));
      return { got: req.body };
    });
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const res = await fetch(`${url}/slow`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ a: 1 }),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { got: { a: 1 } });
    } finally {
      await app.close();
    }
  });
});
