/**
 * Keeps `./loupe` child processes running: a dead child is logged (exit code or signal, its last
 * stderr lines) and started again after a backoff that doubles and resets once a run was stable.
 * Each child gets its own process group, so a terminal's Ctrl-C reaches it once, through
 * `stop()` (SIGTERM, then SIGKILL of the whole group after a grace period), never twice.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { ROOT } from "../common/config.ts";
import type { Logger } from "../common/logger.ts";
import { isReadyMessage, type ReadyMessage } from "./supervised.ts";

export interface ChildSpec {
  /** Short name for logs ("files", "intel", "intel-worker"). */
  name: string;
  /** Arguments of `./loupe`. */
  args: string[];
}

export interface SupervisorOptions {
  logger: Logger;
  /** First restart delay; doubles per quick death up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A child that ran this long before dying restarts after `initialBackoffMs` again. */
  stableMs?: number;
  /** Time between SIGTERM and SIGKILL when stopping. */
  graceMs?: number;
  /** Lines of a child's stderr kept to say why it died. */
  stderrLines?: number;
}

export interface Supervisor {
  /** Starts a child; resolves with its first ready report, rejects if it dies before that. */
  start(spec: ChildSpec): Promise<ReadyMessage>;
  /** Stops every child and restarts none from now on. */
  stop(): Promise<void>;
  /** The current process id of each child (undefined while it waits to restart). */
  pids(): Record<string, number | undefined>;
}

interface Supervised {
  spec: ChildSpec;
  child?: ChildProcess;
  backoffMs: number;
  restartTimer?: NodeJS.Timeout;
  lastStderr: string[];
}

export function createSupervisor(opts: SupervisorOptions): Supervisor {
  const settings = {
    initialBackoffMs: opts.initialBackoffMs ?? 500,
    maxBackoffMs: opts.maxBackoffMs ?? 30_000,
    stableMs: opts.stableMs ?? 60_000,
    graceMs: opts.graceMs ?? 10_000,
    stderrLines: opts.stderrLines ?? 20,
  };
  const children = new Map<string, Supervised>();
  let stopping = false;

  /** Runs one life of a child; `onReady`/`onEarlyDeath` only matter for the first life. */
  function launch(entry: Supervised, onReady?: (m: ReadyMessage) => void, onEarlyDeath?: (e: Error) => void) {
    const child = spawnLoupe(entry.spec.args);
    const startedAt = Date.now();
    let ready = false;
    entry.child = child;
    entry.lastStderr = [];
    keepLastLines(child, entry, settings.stderrLines);
    child.on("message", (message) => {
      if (!isReadyMessage(message) || ready) return;
      ready = true;
      onReady?.(message);
    });
    child.once("exit", (code, signal) => {
      entry.child = undefined;
      killGroup(child, "SIGKILL"); // what it started (clamd) must not outlive it
      if (stopping) return;
      const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (!ready && onEarlyDeath) {
        onEarlyDeath(new Error(`${entry.spec.name} ${why} before it was ready`));
        return;
      }
      const upMs = Date.now() - startedAt;
      if (upMs >= settings.stableMs) entry.backoffMs = settings.initialBackoffMs;
      const delay = entry.backoffMs;
      entry.backoffMs = Math.min(entry.backoffMs * 2, settings.maxBackoffMs);
      opts.logger.error(
        { service: entry.spec.name, childPid: child.pid, code, signal, upMs, lastStderr: entry.lastStderr },
        `${entry.spec.name} (pid ${child.pid}) ${why}; restarting in ${delay / 1000} s`,
      );
      entry.restartTimer = setTimeout(() => {
        entry.restartTimer = undefined;
        if (!stopping) launch(entry);
      }, delay);
    });
  }

  return {
    start(spec) {
      if (children.has(spec.name)) throw new Error(`${spec.name} is already supervised`);
      const entry: Supervised = { spec, backoffMs: settings.initialBackoffMs, lastStderr: [] };
      children.set(spec.name, entry);
      return new Promise((resolve, reject) => {
        launch(entry, resolve, (err) => {
          children.delete(spec.name);
          reject(Object.assign(err, { lastStderr: entry.lastStderr }));
        });
      });
    },
    async stop() {
      stopping = true;
      await Promise.all([...children.values()].map((entry) => stopChild(entry, settings.graceMs)));
    },
    pids() {
      return Object.fromEntries([...children].map(([name, e]) => [name, e.child?.pid]));
    },
  };
}

function spawnLoupe(args: string[]): ChildProcess {
  return spawn(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", path.join(ROOT, "src/cli/main.ts"), ...args],
    // stdout passes through; stderr is copied (and its end kept); the IPC channel carries the
    // child's ready report, and its closing tells the child that the supervisor is gone.
    { stdio: ["ignore", "inherit", "pipe", "ipc"], detached: true },
  );
}

/** Copies the child's stderr to ours, keeping its last lines for the death report. */
function keepLastLines(child: ChildProcess, entry: Supervised, max: number): void {
  let partial = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    entry.lastStderr.push(...lines.filter((l) => l.trim()).map((l) => l.slice(0, 500)));
    if (entry.lastStderr.length > max) entry.lastStderr.splice(0, entry.lastStderr.length - max);
  });
}

async function stopChild(entry: Supervised, graceMs: number): Promise<void> {
  clearTimeout(entry.restartTimer);
  const child = entry.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Signals the child's whole process group (it leads one: spawned detached). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already empty.
  }
}
