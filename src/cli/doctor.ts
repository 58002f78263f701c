/**
 * `./loupe doctor`: checks a deployment from the outside, the way an operator would, and prints
 * a table, JSON, or Prometheus text (for node_exporter's textfile collector: the services' own
 * /metrics cannot see a stopped worker or stale signatures). Exit code 1 on any error, 0 with
 * warnings: a cron or a probe alerts on errors only.
 */
import { parseArgs } from "node:util";
import { configurationCheck, secretsCheck, tlsCheck } from "./doctor/configuration.ts";
import { databaseChecks } from "./doctor/database.ts";
import { clamdCheck, yaraCheck, yaraNativeCheck } from "./doctor/engines.ts";
import type { CheckResult } from "./doctor/result.ts";
import { diskChecks, nodeCheck } from "./doctor/system.ts";
import { UsageError } from "./usage.ts";

export async function runChecks(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const [database, disk, clamd, yara] = await Promise.all([
    databaseChecks(env),
    diskChecks(env),
    clamdCheck(env),
    yaraCheck(),
  ]);
  return [
    configurationCheck(env),
    tlsCheck(env),
    secretsCheck(env),
    nodeCheck(),
    ...disk,
    ...database,
    clamd,
    yara,
    yaraNativeCheck(env),
  ];
}

export function formatTable(results: CheckResult[]): string {
  const rows = results.map((r) => [r.check, r.status, r.detail, r.fix ?? ""]);
  const header = ["check", "status", "detail", "fix"];
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (i < 2 ? (r[i] ?? "").length : 0))),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c))
      .filter((c, i) => i < 3 || c !== "")
      .join("  ");
  const body = rows.map((r) => line([r[0] ?? "", r[1] ?? "", r[2] ?? "", r[3] ? `→ ${r[3]}` : ""]));
  return `${[line(header.slice(0, 3)), ...body].join("\n")}\n`;
}

const LEVEL = { ok: 0, warn: 1, error: 2 } as const;

/** One gauge per check: 0 ok, 1 warn, 2 error. */
export function formatPrometheus(results: CheckResult[]): string {
  const lines = [
    "# HELP loupe_doctor_status Result of each ./loupe doctor check: 0 ok, 1 warn, 2 error.",
    "# TYPE loupe_doctor_status gauge",
    ...results.map((r) => `loupe_doctor_status{check="${r.check.replaceAll('"', "")}"} ${LEVEL[r.status]}`),
  ];
  return `${lines.join("\n")}\n`;
}

export async function doctor(args: string[]): Promise<number> {
  let values: { json?: boolean; prometheus?: boolean };
  try {
    values = parseArgs({
      args,
      options: { json: { type: "boolean" }, prometheus: { type: "boolean" } },
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ./loupe doctor [--json | --prometheus]`);
  }
  const results = await runChecks(process.env);
  const failed = results.some((r) => r.status === "error");
  if (values.prometheus) process.stdout.write(formatPrometheus(results));
  else if (values.json) {
    const summary = { ok: !failed, warnings: results.filter((r) => r.status === "warn").length };
    process.stdout.write(`${JSON.stringify({ ...summary, checks: results }, null, 2)}\n`);
  } else process.stdout.write(formatTable(results));
  return failed ? 1 : 0;
}
