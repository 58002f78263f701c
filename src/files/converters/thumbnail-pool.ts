/**
 * Thumbnails in child processes: each child makes one thumbnail at a time; one past its deadline
 * is killed (a libvips call such as an SVG filter cannot be interrupted, it can only be ended with
 * its process) and one that dies takes only its own request. Idle children exit after a while.
 */
import { type ChildProcess, fork } from "node:child_process";
import { bufferView } from "../../common/bytes.ts";
import { badRequest, HttpError } from "../../common/errors.ts";
import type { ThumbnailLimits } from "./limits.ts";
import { thumbnailTimeout } from "./limits.ts";
import type { ThumbnailRequest } from "./thumbnail.ts";
import type { ChildAnswer, ChildTask } from "./thumbnail-child.ts";

export interface ThumbnailPoolOptions {
  limits: ThumbnailLimits & { timeoutMs: number };
  /** How long an idle child lives, in ms. */
  idleMs: number;
}

/** A child that has not loaded its modules by then is broken, not busy. */
const START_LIMIT_MS = 30_000;
/** libvips stops work in whole seconds; the kill comes after its own chance to answer. */
const KILL_GRACE_MS = 1000;

export interface ThumbnailPool {
  run(input: string | Buffer, req: ThumbnailRequest): Promise<Buffer>;
  close(): Promise<void>;
}

interface Idle {
  child: ChildProcess;
  timer: NodeJS.Timeout;
}

export function createThumbnailPool(options: ThumbnailPoolOptions): ThumbnailPool {
  const idle: Idle[] = [];
  const busy = new Set<ChildProcess>();
  const take = async (): Promise<ChildProcess> => {
    for (let ready = idle.pop(); ready; ready = idle.pop()) {
      clearTimeout(ready.timer);
      if (alive(ready.child)) return holdsProcess(ready.child, true);
    }
    return spawnChild();
  };
  const release = (child: ChildProcess) => {
    busy.delete(child);
    if (!alive(child)) return;
    // An idle child must not keep the service's process alive on its own.
    holdsProcess(child, false);
    const entry: Idle = { child, timer: setTimeout(() => retire(entry), options.idleMs) };
    entry.timer.unref();
    idle.push(entry);
  };
  const retire = (entry: Idle) => {
    idle.splice(idle.indexOf(entry), 1);
    entry.child.kill("SIGKILL");
  };
  return {
    async run(input, req) {
      const child = await take();
      busy.add(child);
      try {
        return await runOnChild(child, { input, req, limits: options.limits });
      } finally {
        release(child);
      }
    },
    async close() {
      for (const entry of idle.splice(0)) {
        clearTimeout(entry.timer);
        entry.child.kill("SIGKILL");
      }
      for (const child of busy) child.kill("SIGKILL");
    },
  };
}

function holdsProcess(child: ChildProcess, hold: boolean): ChildProcess {
  const channel = child.channel as { ref(): void; unref(): void } | null | undefined;
  if (hold) {
    child.ref();
    channel?.ref();
  } else {
    child.unref();
    channel?.unref();
  }
  return child;
}

// `killed` is set as soon as a kill is sent; "exit" comes later.
const alive = (child: ChildProcess) =>
  !child.killed && child.exitCode === null && child.signalCode === null && child.connected;

/** A new child, once it has loaded its modules: its start-up is not counted in a thumbnail's time. */
function spawnChild(): Promise<ChildProcess> {
  const child = fork(new URL("./thumbnail-child.ts", import.meta.url), [], {
    execArgv: ["--disable-warning=ExperimentalWarning"],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  // A failed send or spawn also ends in "exit" (handled per task); without a listener it would throw.
  child.on("error", () => {});
  return new Promise((resolve, reject) => {
    const failed = (why: string) => () => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`A thumbnail process ${why}.`));
    };
    const onExit = failed("ended while starting");
    const timer = setTimeout(failed(`did not start within ${START_LIMIT_MS} ms`), START_LIMIT_MS);
    child.once("exit", onExit);
    child.once("message", () => {
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve(child);
    });
  });
}

/** Sends one task; kills the child when it outlives the deadline or answers nonsense. */
function runOnChild(
  child: ChildProcess,
  task: ChildTask & { limits: { timeoutMs: number } },
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      settle();
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(() => reject(thumbnailTimeout(task.limits.timeoutMs)));
    }, task.limits.timeoutMs + KILL_GRACE_MS);
    const onMessage = (answer: ChildAnswer) =>
      done(() => (answer.ok ? resolve(bufferView(answer.png)) : reject(toError(answer))));
    const onExit = (code: number | null, signal: string | null) => done(() => reject(crashed(code, signal)));
    child.on("message", onMessage);
    child.on("exit", onExit);
    child.send(task);
  });
}

function toError(answer: Extract<ChildAnswer, { ok: false }>): HttpError {
  return new HttpError(answer.status, answer.code, answer.detail);
}

function crashed(code: number | null, signal: string | null): HttpError {
  return badRequest(
    "decoder_crashed",
    `The image decoder's process ended (${signal ?? `exit code ${code}`}) on this file; the service goes on.`,
  );
}
