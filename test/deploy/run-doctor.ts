/** Runs `node src/cli/main.ts doctor` as a child process with only the given variables. */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { CheckResult } from "../../src/cli/doctor/result.ts";
import { ROOT } from "../../src/common/config.ts";

export interface DoctorReport {
  ok: boolean;
  warnings: number;
  checks: CheckResult[];
}

const compileCache = () =>
  process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};

export function runDoctor(
  env: Record<string, string>,
  args = ["--json"],
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "src/cli/main.ts"), "doctor", ...args], {
      // Node's compile cache is no Loupe setting: kept, it only makes the start cheaper.
      env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...compileCache(), ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? -1, out }));
  });
}

export async function doctorReport(
  env: Record<string, string>,
): Promise<{ code: number; report: DoctorReport }> {
  const { code, out } = await runDoctor(env);
  return { code, report: JSON.parse(out) as DoctorReport };
}

export function checkOf(report: DoctorReport, check: string): CheckResult {
  const found = report.checks.find((c) => c.check === check);
  if (!found) throw new Error(`no ${check} check in ${report.checks.map((c) => c.check).join(", ")}`);
  return found;
}
