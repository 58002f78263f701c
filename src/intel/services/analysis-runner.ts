/**
 * Runs pending analyses in the intel API process that received their file, a few at a time
 * (INTEL_ANALYSIS_CONCURRENCY), and keeps none stuck: each one it holds carries a lease it renews
 * (INTEL_ANALYSIS_LEASE_SECONDS); a sweep (at start, then every third of a lease, at least every
 * minute) takes over a pending analysis whose lease ran out — the
 * process that held it stopped — and runs it again when its file is on this machine, or fails it
 * saying so (its file went with the process's disk). The same sweep deletes kept files past their age.
 */
import { access, rm } from "node:fs/promises";
import pLimit from "p-limit";
import type { Logger } from "../../common/logger.ts";
import {
  type AnalysisRow,
  failAnalysis,
  forgetFile,
  getAnalysis,
  interruptedAnalyses,
  keptFilesBefore,
  leaseAnalysis,
  renewLeases,
} from "../store/analyses.ts";
import type { Store } from "../store/db.ts";

/** The sweep runs at least this often, and every third of a lease (which is renewed then). */
const SWEEP_MS = 60_000;
const SWEEP_BATCH = 100;

export interface RunnerOptions {
  db: Store["db"];
  concurrency: number;
  /** How long a lease lasts (INTEL_ANALYSIS_LEASE_SECONDS): a stopped process's work is taken over after it. */
  leaseMs: number;
  /** Kept files older than this many days are deleted (null: files are not kept). */
  keepDays: number | null;
  /**
   * Does the work for one analysis; never throws for the analysis' own failures. `signal` aborts
   * when this process closes: the analysis is then left pending, for the next process to take over.
   */
  run(row: AnalysisRow, signal: AbortSignal): Promise<void>;
  log?: Logger;
}

export interface AnalysisRunner {
  /** A lease taken now ends then. */
  leaseUntil(): string;
  /** Queues an analysis this process holds the lease of (just received). */
  enqueue(id: string): void;
  /** Resolves when nothing queued or running is left (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export function createAnalysisRunner(opts: RunnerOptions): AnalysisRunner {
  const { db } = opts;
  const limit = pLimit(opts.concurrency);
  const held = new Set<string>();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  const leaseFromNow = () => new Date(Date.now() + opts.leaseMs).toISOString();

  const start = (id: string) => {
    held.add(id);
    const task = limit(async () => {
      const row = stopping.signal.aborted ? undefined : await getAnalysis(db, id);
      if (row?.status === "pending") await opts.run(row, stopping.signal);
    })
      .catch((err) => opts.log?.warn({ err, analysis: id }, "analysis runner: a run failed"))
      .finally(() => {
        held.delete(id);
        running.delete(task);
      });
    running.add(task);
  };

  const sweep = async () => {
    await renewLeases(db, [...held], leaseFromNow());
    for (const row of await interruptedAnalyses(db, SWEEP_BATCH)) {
      if (held.has(row.id) || !(await leaseAnalysis(db, row.id, leaseFromNow()))) continue;
      if (row.file_path && (await exists(row.file_path))) start(row.id);
      else
        await failAnalysis(
          db,
          row.id,
          JSON.stringify({
            code: "interrupted",
            detail:
              "The intel process analysing this file stopped, and the file is not on this machine: upload it again.",
          }),
        );
    }
    if (opts.keepDays !== null) await purgeKeptFiles(db, opts.keepDays);
  };

  let sweeping: Promise<void> = Promise.resolve();
  const tick = () => {
    sweeping = sweeping
      .then(sweep)
      .catch((err) => opts.log?.warn({ err }, "analysis runner: a sweep failed"));
  };
  tick();
  const timer = setInterval(tick, Math.min(SWEEP_MS, opts.leaseMs / 3));
  timer.unref();

  return {
    leaseUntil: leaseFromNow,
    enqueue: start,
    idle: async () => {
      await sweeping;
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    close: async () => {
      stopping.abort();
      clearInterval(timer);
      await sweeping;
      await Promise.allSettled([...running]);
    },
  };
}

/** Deletes kept files older than `days` (the analyses stay, without their file). */
async function purgeKeptFiles(db: Store["db"], days: number): Promise<void> {
  const before = new Date(Date.now() - days * 86_400_000).toISOString();
  for (const kept of await keptFilesBefore(db, before, SWEEP_BATCH)) {
    await rm(kept.file_path, { force: true });
    await forgetFile(db, kept.id);
  }
}
