/**
 * The clamd Loupe runs for itself when no FILES_CLAMD_SOCKET/FILES_CLAMD_HOST is configured: its own config,
 * socket and signature folder under LOUPE_DATA_DIR/clamd, the project's small test signature database
 * (EICAR and Loupe's own test signatures) unless the folder already holds real databases.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFile, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../common/logger.ts";
import { findProgram } from "../sandbox/memory.ts";
import { type ClamdAddress, ping } from "./client.ts";

const SIGNATURES = path.join(import.meta.dirname, "signatures");
const START_TIMEOUT_MS = 60_000;

export interface ManagedClamd {
  address: ClamdAddress;
  pid: number;
  stop(): Promise<void>;
}

export function findClamd(): string | undefined {
  for (const candidate of ["/usr/sbin/clamd", "/usr/bin/clamd"]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return findProgram("clamd") ?? undefined;
}

export async function startManagedClamd(
  dir: string,
  opts: { maxFileSize: number; log: Pick<Logger, "info" | "warn"> },
): Promise<ManagedClamd> {
  const binary = findClamd();
  if (!binary) throw new Error("clamd is not installed (Debian package clamav-daemon)");
  const dbDir = path.join(dir, "db");
  const socket = path.join(dir, "clamd.sock");
  await mkdir(dbDir, { recursive: true, mode: 0o700 });
  await installTestSignatures(dbDir);
  await rm(socket, { force: true });
  const streamMb = Math.ceil(opts.maxFileSize / 1_048_576) + 1;
  const conf = [
    `LocalSocket ${socket}`,
    "LocalSocketMode 600",
    `DatabaseDirectory ${dbDir}`,
    "Foreground yes",
    `LogFile ${path.join(dir, "clamd.log")}`,
    "LogFileMaxSize 10M",
    `StreamMaxLength ${streamMb}M`,
    `MaxFileSize ${streamMb}M`,
    `MaxScanSize ${streamMb * 4}M`,
    "MaxRecursion 16",
    "MaxThreads 8",
    "SelfCheck 3600",
  ].join("\n");
  const confPath = path.join(dir, "clamd.conf");
  await writeFile(confPath, `${conf}\n`, { mode: 0o600 });
  const child = spawn(binary, ["-c", confPath], { stdio: ["ignore", "ignore", "pipe"], detached: false });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const address = { socket };
  await waitUntilReady(child, address, () => stderr);
  opts.log.info(`clamd started (pid ${child.pid}, ${socket})`);
  return { address, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

/** Copies Loupe's signature files unless real ClamAV databases (.cvd/.cld) are already there. */
async function installTestSignatures(dbDir: string): Promise<void> {
  const present = await readdir(dbDir);
  if (present.some((f) => f.endsWith(".cvd") || f.endsWith(".cld"))) return;
  for (const file of await readdir(SIGNATURES))
    await copyFile(path.join(SIGNATURES, file), path.join(dbDir, file));
}

async function waitUntilReady(
  child: ChildProcess,
  address: ClamdAddress,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`clamd exited with code ${child.exitCode}: ${stderr().trim()}`);
    if (await ping(address, 1000).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`clamd did not answer within ${START_TIMEOUT_MS} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
