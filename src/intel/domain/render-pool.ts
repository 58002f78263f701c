/**
 * Up to `size` render processes (render-process.ts), started when work comes and ended after
 * `idleMs` without any, so what a large render took is given back to the system. One task per
 * process at a time; the others wait in order. A process that dies mid-task (killed, out of
 * memory) is replaced and its task runs once more on a fresh one; a second death fails that task
 * only, with the reason. A result arrives as slices (render-process.ts), kept as they came.
 */
import { type ChildProcess, fork } from "node:child_process";
import type { RenderMessage } from "./render-process.ts";
import type { RenderedChunks, RenderTask } from "./render-task.ts";

/** A slice of the result, the end (null: nothing stored), or why it failed. */
type Reply = { id: number; chunk?: Uint8Array; result?: { contentType: string } | null; error?: string };

interface Worker {
  child: ChildProcess;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

interface Waiting {
  task: RenderTask;
  /** Processes that died running it. */
  deaths: number;
  resolve(result: RenderedChunks | null): void;
  reject(err: Error): void;
}

export interface RenderPool {
  run(task: RenderTask): Promise<RenderedChunks | null>;
  close(): Promise<void>;
}

const ENTRY = new URL("./render-process.ts", import.meta.url);

export function createRenderPool(databaseUrl: string, size: number, idleMs: number): RenderPool {
  const workers = new Set<Worker>();
  const queue: Waiting[] = [];
  let nextId = 1;
  let closed = false;

  function start(): Worker {
    const child = fork(ENTRY, [], {
      serialization: "advanced", // bytes travel as bytes, not as JSON arrays
      execArgv: ["--disable-warning=ExperimentalWarning"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const worker: Worker = { child, busy: false };
    child.on("exit", () => workers.delete(worker));
    workers.add(worker);
    return worker;
  }

  function dispatch(): void {
    while (queue.length > 0 && !closed) {
      let worker = [...workers].find((w) => !w.busy && w.child.connected);
      if (!worker && workers.size < size) worker = start();
      if (!worker) return;
      runOn(worker, queue.shift() as Waiting);
    }
  }

  function runOn(worker: Worker, waiting: Waiting): void {
    clearTimeout(worker.idleTimer);
    worker.busy = true;
    const id = nextId++;
    const chunks: Buffer[] = [];
    const done = (settle: () => void) => {
      worker.child.off("message", onMessage);
      worker.child.off("exit", onExit);
      worker.busy = false;
      // A dead process is not disconnected again (that emits an error nobody listens to).
      worker.idleTimer = setTimeout(() => worker.child.connected && worker.child.disconnect(), idleMs);
      worker.idleTimer.unref();
      settle();
      dispatch();
    };
    const onMessage = (reply: Reply) => {
      if (reply.id !== id) return;
      if (reply.chunk) return void chunks.push(asBuffer(reply.chunk));
      const { result, error } = reply;
      done(() =>
        error === undefined
          ? waiting.resolve(result ? { chunks, contentType: result.contentType } : null)
          : waiting.reject(new Error(error)),
      );
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(() => afterDeath(waiting, signal ?? `code ${code}`, closed, queue));
    worker.child.on("message", onMessage);
    worker.child.on("exit", onExit);
    worker.child.send({ id, databaseUrl, task: waiting.task } satisfies RenderMessage);
  }

  return {
    run: (task) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(new Error("the render pool is closed"));
        queue.push({ task, deaths: 0, resolve, reject });
        dispatch();
      }),
    async close() {
      closed = true;
      for (const w of queue.splice(0)) w.reject(new Error("the render pool is closed"));
      await Promise.all([...workers].map(stop));
    },
  };
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A task whose process died: first in line again once (for the fresh process), else failed with why. */
function afterDeath(waiting: Waiting, why: string, closed: boolean, queue: Waiting[]): void {
  waiting.deaths++;
  if (closed) waiting.reject(new Error(`the render pool closed (its process ended: ${why})`));
  else if (waiting.deaths > 1)
    waiting.reject(new Error(`the render process ended (${why}), twice for this task`));
  else queue.unshift(waiting);
}

/** Ends a render process (its channel closed, or killed when that is gone already). */
function stop(w: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    clearTimeout(w.idleTimer);
    if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
    w.child.once("exit", () => resolve());
    if (w.child.connected) w.child.disconnect();
    else w.child.kill();
  });
}
