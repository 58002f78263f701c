/**
 * Starts the Mandolin-style Python peer (bench/peer/server.py) under uvicorn. Its Debian packages
 * are installed the way the project installs system packages. Mandolin's image runs 4 uvicorn
 * workers with uvloop and httptools; we keep 4 on this 2-core machine (BENCH_PEER_WORKERS).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { ensureDebianPackages } from "../../src/common/system.ts";
import { freePort } from "../lib/server.ts";

export const PEER_PACKAGES = [
  "python3-fastapi",
  "python3-uvicorn",
  "python3-multipart",
  "python3-pil",
  "python3-yara",
  "python3-uvloop",
  "python3-httptools",
];

/** Debian's interpreter, not whatever `python3` comes first on PATH (it must see the apt packages). */
const PYTHON = "/usr/bin/python3";

export interface Peer {
  url: string;
  workers: number;
  /** Process group of uvicorn and its workers. */
  pgid: number;
  stop(): Promise<void>;
}

/**
 * The peer runs as Mandolin is deployed: with the C library's defaults, not with the
 * `GLIBC_TUNABLES` that `./loupe` sets for Loupe (huge pages cut page-fault costs for both
 * servers alike: docs/benchmarks.md). `BENCH_PEER_GLIBC_TUNABLES` gives the peer tunables of its own.
 */
export function peerEnvironment(): NodeJS.ProcessEnv {
  const { GLIBC_TUNABLES: _loupes, ...env } = process.env;
  const own = process.env.BENCH_PEER_GLIBC_TUNABLES;
  return own ? { ...env, GLIBC_TUNABLES: own } : env;
}

export async function startPeer(workers: number): Promise<Peer> {
  const missing = ensureDebianPackages(PEER_PACKAGES, { info: console.log, warn: console.warn });
  if (missing.length > 0) throw new Error(`the peer needs these Debian packages: ${missing.join(" ")}`);
  const port = await freePort();
  const child = spawn(
    PYTHON,
    [
      "-m",
      "uvicorn",
      "server:app",
      "--app-dir",
      path.join(ROOT, "bench/peer"),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--workers",
      String(workers),
      "--log-level",
      "warning",
      "--no-access-log",
    ],
    // Its own process group, so stopping it also ends the uvicorn worker processes.
    { stdio: ["ignore", "ignore", "inherit"], detached: true, env: peerEnvironment() },
  );
  // Detached, the group would outlive a benchmark that crashes: end it when this process exits.
  const endGroup = () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
  };
  process.once("exit", endGroup);
  child.once("exit", () => process.off("exit", endGroup));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, child);
  return { url, workers, pgid: child.pid ?? 0, stop: () => stopGroup(child) };
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error("the Python peer did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || !child.pid) return resolve();
    child.once("exit", () => resolve());
    process.kill(-child.pid, "SIGTERM");
  });
}

/** CPU seconds (user + system, all threads) used so far by every process of a process group (Linux /proc). */
export function groupCpuSeconds(pgid: number): number {
  let seconds = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat?.pgrp === pgid) seconds += stat.cpuSeconds;
  }
  return seconds;
}

/**
 * CPU seconds (user + system, all threads) used so far by a process and every process it started:
 * the live descendants (thumbnail and sandbox children, even in process groups of their own) and,
 * through the kernel's child counters, those that already ended and were reaped.
 */
export function processTreeCpuSeconds(pid: number): number {
  const stats = new Map<number, NonNullable<ReturnType<typeof readStat>>>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const inTree = (p: number): boolean => {
    for (let at = p, hops = 0; at > 1 && hops < 64; hops++) {
      if (at === pid) return true;
      at = stats.get(at)?.ppid ?? 0;
    }
    return false;
  };
  let seconds = 0;
  for (const [p, stat] of stats) if (inTree(p)) seconds += stat.cpuSeconds + stat.reapedChildrenSeconds;
  return seconds;
}

/** USER_HZ: 100 on every Linux we run on. */
const CLOCK_TICKS = 100;

interface ProcStat {
  ppid: number;
  pgrp: number;
  cpuSeconds: number;
  /** cutime + cstime: children that ended and were waited for. */
  reapedChildrenSeconds: number;
}

function readStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // The process ended.
  }
  // After the command name (which may hold spaces): ppid is field 4, pgrp 5, utime 14, stime 15,
  // cutime 16, cstime 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = (i: number) => Number(fields[i]) / CLOCK_TICKS;
  return {
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    cpuSeconds: ticks(11) + ticks(12),
    reapedChildrenSeconds: ticks(13) + ticks(14),
  };
}
