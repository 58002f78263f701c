/**
 * Clients that misbehave mid-upload, for the soak: bodies cut off half-way (one kept in memory,
 * one written to disk), a body that stalls after its head (the service must close it after
 * HTTP_BODY_IDLE_TIMEOUT_MS), and a client that leaves while its 6,000-member zip is taken apart.
 */
import { randomBytes } from "node:crypto";
import type net from "node:net";
import { connect, MULTIPART_END, multipartHead, multipartLength } from "../helpers/raw-upload.ts";
import { storedZip } from "../helpers/zip.ts";
import { multipart, type Shape, type SoakLimits } from "./soak-requests.ts";

const MiB = 1024 * 1024;

/** Sent on a socket of its own from the lane's address (the shape needs no payload built). */
function rawShape(
  name: string,
  accept: string[],
  run: (socket: net.Socket) => Promise<string>,
  kind = "upload",
): Shape {
  return {
    kind,
    name,
    accept,
    abandonable: false,
    prepare: async () => undefined,
    async send({ url, client }, signal) {
      const socket = await connect(url, client.localAddress);
      socket.on("error", () => undefined);
      const late = () => socket.destroy();
      signal.addEventListener("abort", late);
      try {
        const outcome = await run(socket);
        signal.throwIfAborted();
        return outcome;
      } finally {
        signal.removeEventListener("abort", late);
        socket.destroy();
      }
    },
  };
}

/** Announces `announced` bytes, sends `sent` of them, and hangs up. */
function cutOff(route: string, fields: Record<string, string>, announced: number, sent: number) {
  return async (socket: net.Socket) => {
    socket.write(multipartHead(route, announced, fields));
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(sent, 0x41), () => resolve()));
    await new Promise((r) => setTimeout(r, 20));
    return "cut";
  };
}

/**
 * The service's answer on `socket`, as an outcome (`400:<code>`), once its whole body has come;
 * `closed-without-answer` when the service hangs up first.
 */
function answerOn(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const done = (outcome: string) => {
      socket.removeAllListeners("data");
      resolve(outcome);
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const length = /content-length: (\d+)/i.exec(head)?.[1];
      if (length === undefined || body.length < Number(length)) return;
      const status = head.slice(9, 12);
      const code = (JSON.parse(body.slice(0, Number(length)) || "{}") as { code?: string }).code;
      done(`${status}:${code ?? "no-code"}`);
    });
    socket.once("close", () => done("closed-without-answer"));
  });
}

/** Announces and sends a file of `bytes`, a megabyte at a time, until the service answers. */
function oversize(bytes: number) {
  return async (socket: net.Socket) => {
    const answer = answerOn(socket);
    let answered = false;
    void answer.then(() => {
      answered = true;
    });
    socket.write(multipartHead("/analyzer/extractor", multipartLength({}, bytes), {}));
    const chunk = Buffer.alloc(MiB, 0x41);
    for (let sent = 0; sent < bytes && !answered && !socket.destroyed; sent += chunk.length) {
      const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
      await new Promise<void>((resolve) => socket.write(part, () => resolve()));
    }
    if (!answered) socket.write(MULTIPART_END);
    return answer;
  };
}

/** Resolves `closed-by-server` once the service closes the socket, `left-open` past `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("left-open"), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve("closed-by-server");
    });
  });
}

export function cutUploadShapes(limits: SoakLimits): Shape[] {
  const rules = { rules: 'rule hit { strings: $a = "loupe" condition: $a }' };
  const members: Record<string, Buffer> = {};
  return [
    rawShape(
      "a body one byte over MAX_FILE_SIZE",
      ["400:file_too_large"],
      oversize(limits.maxFileSize + 1),
      "body",
    ),
    rawShape(
      "upload cut off half-way (kept in memory)",
      ["cut"],
      cutOff("/analyzer/rulematch", rules, 60_000, 30_000),
    ),
    rawShape(
      "upload cut off half-way (written to disk)",
      ["cut"],
      cutOff("/analyzer/extractor", {}, 20 * MiB, 2 * MiB),
    ),
    rawShape("upload stalled after its head", ["closed-by-server"], async (socket) => {
      socket.write(multipartHead("/analyzer/extractor", 60_000, {}));
      socket.write("a few bytes");
      return closedWithin(socket, limits.bodyIdleMs + 10_000);
    }),
    leaving(
      multipart({
        kind: "upload",
        name: "client leaves while its 6,000-member zip is taken apart",
        route: "/analyzer/extractor",
        processor: "extractor",
        accept: ["200:ok", "200:partial"],
        build: () => {
          for (let i = 0; i < 6000; i++) members[`m${i}.bin`] = randomBytes(4096);
          return { bytes: storedZip(members), filename: "many.zip" };
        },
      }),
      1500,
    ),
  ];
}

/** `shape`, abandoned by its client after `ms` (resolving `left`) unless answered before. */
function leaving(shape: Shape, ms: number): Shape {
  return {
    ...shape,
    accept: [...shape.accept, "left"],
    abandonable: false,
    async send(target, signal) {
      const leave = AbortSignal.timeout(ms);
      try {
        return await shape.send(target, AbortSignal.any([signal, leave]));
      } catch (err) {
        if (leave.aborted && !signal.aborted) return "left";
        throw err;
      }
    },
  };
}
