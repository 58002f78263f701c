/**
 * Runs structure-aware fuzz cases against a real files process and says what happened: cases,
 * crashes (the process exited — every case then in flight is named, its body kept), 5xx and
 * other wrong answers, the slowest answer, and the server's RSS before and after. After a crash
 * a fresh process takes over, so one crash does not hide the next.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { judgeAnswer, sendHostile } from "../../helpers/hostile.ts";
import { memoryOf } from "../../helpers/process-memory.ts";
import { type RealProcess, startFilesProcess } from "../../helpers/real-process.ts";
import { archiveSeeds, type StructuredCase, structuredCase } from "./index.ts";

export interface FuzzReport {
  cases: number;
  crashes: Array<{ index: number; description: string; exit: string; saved?: string }>;
  /** Answers ≥ 500, over the time bound, or without the error model. */
  failures: Array<{ index: number; description: string; problem: string }>;
  byFamily: Record<string, Record<string, number>>;
  slowest: { ms: number; description: string };
  /** The server did not stop within 15 s of SIGTERM after the run (it was SIGKILLed). */
  shutdownHung: boolean;
  rssBeforeMb: number;
  rssAfterMb: number;
  peakMb: number;
  seconds: number;
}

export interface FuzzOptions {
  cases: number;
  seed: number;
  concurrency: number;
  /** Caps every bomb's unpacked size (default 64 MiB). */
  maxBombBytes?: number;
  /** Environment of the files process (limits). */
  env?: Record<string, string>;
  /** Where the bodies of crashing cases are written (not kept when absent). */
  saveDir?: string;
  log?: (line: string) => void;
  /** Stops taking new cases (the report then counts the cases run). */
  stop?: AbortSignal;
  /** Called with the server before it is stopped (a test checks that it survived). */
  beforeClose?: (server: RealProcess) => Promise<void>;
}

export async function runStructuredFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const seeds = await archiveSeeds(opts.maxBombBytes);
  const cases = fc.sample(structuredCase(seeds, opts.maxBombBytes), { numRuns: opts.cases, seed: opts.seed });
  const report: FuzzReport = {
    cases: cases.length,
    crashes: [],
    failures: [],
    byFamily: {},
    slowest: { ms: 0, description: "" },
    shutdownHung: false,
    rssBeforeMb: 0,
    rssAfterMb: 0,
    peakMb: 0,
    seconds: 0,
  };
  let server = await startServer(opts.env);
  const inFlight = new Map<number, StructuredCase>();
  let restarting: Promise<void> | undefined;
  report.rssBeforeMb = memoryOf(server.pid).rssMb;
  const started = performance.now();
  let next = 0;

  const crashed = async (dead: RealProcess) => {
    const exit = dead.child.signalCode ?? `code ${dead.child.exitCode}`;
    for (const [index, c] of inFlight) {
      const saved = opts.saveDir ? await save(opts.saveDir, index, c) : undefined;
      report.crashes.push({ index, description: c.description, exit: String(exit), saved });
      opts.log?.(`CRASH (${exit}) in case ${index}: ${c.description}`);
    }
    await dead.close();
    server = await startServer(opts.env);
  };

  const one = async (index: number, c: StructuredCase) => {
    report.byFamily[c.family] ??= {};
    const family = report.byFamily[c.family]!;
    try {
      const request = c.request();
      const answer = await sendHostile(server.url, request);
      family[answer.status] = (family[answer.status] ?? 0) + 1;
      if (answer.ms > report.slowest.ms) report.slowest = { ms: answer.ms, description: c.description };
      const problem = judgeAnswer(request, answer);
      if (problem)
        report.failures.push({ index, description: c.description, problem: problem.slice(0, 300) });
    } catch (err) {
      family["no answer"] = (family["no answer"] ?? 0) + 1;
      const dead = server;
      await new Promise((r) => setTimeout(r, 200));
      if (dead.child.exitCode !== null || dead.child.signalCode !== null) {
        restarting ??= crashed(dead).finally(() => {
          restarting = undefined;
        });
      } else {
        report.failures.push({
          index,
          description: c.description,
          problem: `no answer: ${(err as Error).message}`,
        });
      }
    }
  };

  try {
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < cases.length && !opts.stop?.aborted) {
          if (restarting) await restarting;
          const index = next++;
          const c = cases[index]!;
          inFlight.set(index, c);
          await one(index, c);
          if (restarting) await restarting;
          inFlight.delete(index);
          if (index % 250 === 0)
            opts.log?.(`… case ${index}, RSS ${memoryOf(server.pid).rssMb.toFixed(0)} MB`);
        }
      }),
    );
    report.seconds = (performance.now() - started) / 1000;
    report.cases = Math.min(next, cases.length);
    await new Promise((r) => setTimeout(r, 2000));
    const after = memoryOf(server.pid);
    report.rssAfterMb = after.rssMb;
    report.peakMb = after.peakMb;
    await opts.beforeClose?.(server);
    return report;
  } finally {
    const last = server;
    const deadline = setTimeout(() => {
      report.shutdownHung = true;
      last.child.kill("SIGKILL");
    }, 15_000);
    await last.close();
    clearTimeout(deadline);
  }
}

/** A files process; on a loaded machine one start can outlast the helper's wait, so try thrice. */
async function startServer(env: Record<string, string> | undefined, tries = 3): Promise<RealProcess> {
  for (let i = 1; ; i++) {
    try {
      return await startFilesProcess(env);
    } catch (err) {
      if (i >= tries) throw err;
    }
  }
}

async function save(dir: string, index: number, c: StructuredCase): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `case-${index}.http`);
  const request = c.request();
  await writeFile(
    file,
    Buffer.concat([
      Buffer.from(`POST ${request.path}\n${request.headers["content-type"]}\n\n`),
      request.body,
    ]),
  );
  return file;
}
