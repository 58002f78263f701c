/** `./loupe bench [NAME…]`: runs bench/<NAME>/index.ts (or every benchmark) and prints their ratios. */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../common/config.ts";
import { UsageError } from "./usage.ts";

export async function bench(args: string[]): Promise<number | undefined> {
  const dir = path.join(ROOT, "bench");
  const available = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "index.ts")))
    .map((d) => d.name)
    .sort();
  const names = args.filter((a) => !a.startsWith("-"));
  const flags = args.filter((a) => a.startsWith("-"));
  for (const name of names) {
    if (!available.includes(name))
      throw new UsageError(`no benchmark "${name}" (have: ${available.join(", ")})`);
  }
  let failed = 0;
  for (const name of names.length > 0 ? names : available) {
    process.stdout.write(`\n═══ bench ${name} ═══\n`);
    const r = spawnSync(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", path.join(dir, name, "index.ts"), ...flags],
      { cwd: ROOT, stdio: "inherit", env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
    );
    if (r.status !== 0) failed++;
  }
  return failed === 0 ? 0 : 1;
}
