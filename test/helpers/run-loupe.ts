/** Runs `./loupe <args>` (node src/cli/main.ts) as a child process; a hang fails instead of waiting. */
import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";

export interface LoupeRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Settings a developer may have exported that would point a test at their own services. */
const OWN_SETTINGS = [
  "FILES_URL",
  "FILES_PORT",
  "INTEL_URL",
  "INTEL_API_KEY",
  "FILES_CLAMD_SOCKET",
  "FILES_CLAMD_HOST",
  "CLAMD_SOCKET",
  "CLAMD_HOST",
];

export function runLoupe(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  /** Written to the child's stdin, then closed (closed at once without it). */
  input?: string,
): Promise<LoupeRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OWN_SETTINGS.includes(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", path.join(ROOT, "src/cli/main.ts"), ...args],
      { env: { ...base, LOG_LEVEL: "warn", ...env }, stdio: "pipe" },
    );
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`./loupe ${args.join(" ")} did not end within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
