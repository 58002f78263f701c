/**
 * Instructions per intel answer, counted by callgrind (the same whatever the machine's load): starts
 * `intel serve` under valgrind on the seeded subject, warms it up, then for each phase zeroes the
 * counters, asks one request at a time and dumps them (callgrind_control). Kernel work is not counted.
 *   node bench/intel/instructions.ts [sqlite|postgres] [ANSWERS] [WARMUP]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { request } from "undici";
import { ROOT } from "../../src/common/config.ts";
import { type DbKind, freshDatabase } from "../../test/helpers/intel-server.ts";
import { freePort } from "../lib/server.ts";
import { seed } from "./seed.ts";

const [kind = "sqlite", answers = "500", warmup = "500"] = process.argv.slice(2);
const OUT_DIR = process.env.BENCH_CALLGRIND_DIR ?? "/tmp";

/** `intel serve` under callgrind, counting nothing until the first phase zeroes its counters. */
async function serveUnderCallgrind(dbUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      `--callgrind-out-file=${OUT_DIR}/intel-callgrind.%p`,
      process.execPath,
      "--disable-warning=ExperimentalWarning",
      path.join(ROOT, "src/cli/main.ts"),
      "intel",
      "serve",
      "--no-worker",
    ],
    {
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        INTEL_FEEDS_REFRESH_MINUTES: "0",
        DATABASE_URL: dbUrl,
        INTEL_CONNECTORS: "virustotal",
        INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
        INTEL_PORT: String(port),
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  // Node under valgrind took 30 minutes to start on this machine at load 30.
  const deadline = Date.now() + 3_600_000;
  for (;;) {
    try {
      await (await request(`${url}/`)).body.arrayBuffer();
      return { url, child };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL");
        throw new Error("intel serve did not start");
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

type Ask = () => Promise<void>;

/** Runs callgrind_control with `args`; the server reads the command within a second (its connection check timer wakes it). */
async function control(pid: number, args: string[]): Promise<void> {
  const ctl = spawn("callgrind_control", [...args, String(pid)], { stdio: "ignore" });
  await once(ctl, "exit");
}

/** The total instructions of callgrind's newest dump of `pid` (its files end in .1, .2, …). */
async function newestDumpTotal(pid: number): Promise<number> {
  const prefix = `intel-callgrind.${pid}.`;
  const numbers = (await readdir(OUT_DIR))
    .filter((n) => n.startsWith(prefix))
    .map((n) => Number(n.slice(prefix.length)))
    .filter((n) => Number.isInteger(n));
  const text = await readFile(path.join(OUT_DIR, `${prefix}${Math.max(...numbers)}`), "utf8");
  const total = /^(?:summary|totals): (\d+)/m.exec(text)?.[1];
  if (!total) throw new Error("no total in callgrind's dump");
  return Number(total);
}

async function main(): Promise<void> {
  const db = await freshDatabase(kind as DbKind);
  const key = await seed(db.url);
  const { url, child } = await serveUnderCallgrind(db.url);
  const pid = child.pid ?? 0;
  const headers = { authorization: `Token ${key}`, "content-type": "application/json" };
  const body = JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: "bench.example.org" });
  const asker =
    (extra: Record<string, string>): Ask =>
    async () => {
      const res = await request(`${url}/api/request/`, {
        method: "POST",
        headers: { ...headers, ...extra },
        body,
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`cached answer: ${res.statusCode}`);
    };
  const trivial: Ask = async () => {
    await (await request(`${url}/`)).body.arrayBuffer();
  };
  const phases: Array<[string, Ask]> = [
    ["trivial", trivial],
    ["cached-gzip", asker({ "accept-encoding": "gzip, deflate" })],
    ["cached-identity", asker({ "accept-encoding": "identity" })],
  ];
  try {
    for (let i = 0; i < Number(warmup); i++) for (const [, ask] of phases) await ask();
    const per: Record<string, number> = {};
    for (const [phase, ask] of phases) {
      await control(pid, ["--zero"]);
      for (let i = 0; i < Number(answers); i++) await ask();
      await control(pid, [`--dump=${phase}`]);
      per[phase] = (await newestDumpTotal(pid)) / Number(answers);
    }
    const k = (n: number | undefined) => `${((n ?? 0) / 1000).toFixed(0)} k`;
    console.log(
      `${kind}: instructions per answer (${answers} each, after ${warmup} warm-up rounds): trivial ${k(per.trivial)}, cached gzip ${k(per["cached-gzip"])} (${((per["cached-gzip"] ?? 0) / (per.trivial ?? 1)).toFixed(2)}×), cached identity ${k(per["cached-identity"])} (${((per["cached-identity"] ?? 0) / (per.trivial ?? 1)).toFixed(2)}×)`,
    );
  } finally {
    child.kill("SIGTERM");
    await db.drop();
  }
}

await main();
