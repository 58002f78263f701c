/**
 * Antivirus through Loupe (HTTP upload streamed into clamd's INSTREAM) versus `clamdscan --stream`
 * against the same clamd, on the same files. The two sides alternate within each round (their
 * order swapped every round) so a busy machine weighs on both alike; best and median are shown.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startTestClamd } from "../../test/helpers/clamd.ts";
import { cpuMsOf, fmt, percentiles } from "../lib/measure.ts";
import { type MultipartBody, multipartBody, postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";

const SIZES_MB = [0.1, 1, 10, 50];
const ROUNDS = 5;

interface Sides {
  cli: () => Promise<void>;
  http: () => Promise<void>;
}

/** One warm-up, then ROUNDS alternating rounds: wall times of both sides, server CPU per request. */
async function measure(sides: Sides, serverPid: number) {
  const wall = { cli: [] as number[], http: [] as number[] };
  const serverCpu: number[] = [];
  for (let r = -1; r < ROUNDS; r++) {
    for (const side of r % 2 === 0 ? (["cli", "http"] as const) : (["http", "cli"] as const)) {
      const cpu0 = cpuMsOf(serverPid);
      const t0 = performance.now();
      await sides[side]();
      if (r < 0) continue;
      wall[side].push(performance.now() - t0);
      if (side === "http") serverCpu.push(cpuMsOf(serverPid) - cpu0);
    }
  }
  return { wall, serverCpu };
}

function row(mb: number, m: Awaited<ReturnType<typeof measure>>): Record<string, string> {
  const best = (v: number[]) => Math.min(...v);
  const median = (v: number[]) => percentiles(v).p50;
  return {
    size: `${mb} MB`,
    "clamdscan best / median (ms)": `${fmt(best(m.wall.cli))} / ${fmt(median(m.wall.cli))}`,
    "Loupe HTTP best / median (ms)": `${fmt(best(m.wall.http))} / ${fmt(median(m.wall.http))}`,
    "ratio best": `${fmt(best(m.wall.http) / best(m.wall.cli), 2)}×`,
    "ratio median": `${fmt(median(m.wall.http) / median(m.wall.cli), 2)}×`,
    "server CPU / request (ms)": fmt(median(m.serverCpu)),
  };
}

async function sample(dir: string, mb: number): Promise<{ file: string; upload: MultipartBody }> {
  const bytes = Buffer.alloc(Math.round(mb * 1024 * 1024));
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  const file = path.join(dir, `clean-${mb}.bin`);
  await writeFile(file, bytes);
  return { file, upload: multipartBody(bytes, `clean-${mb}.bin`) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-bench-av-"));
  const clamd = await startTestClamd(60_000_000);
  const socket = "socket" in clamd.address ? clamd.address.socket : "";
  const server = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: socket,
    MAX_FILE_SIZE: "60000000",
  });
  const conf = path.join(clamd.dir, "clamd.conf");
  try {
    console.log(
      `antivirus benchmark — ${os.cpus().length} cores, load ${(await readFile("/proc/loadavg", "utf8")).trim()}`,
    );
    console.log(`${ROUNDS} alternating rounds per size after a warm-up, same clamd for both sides`);
    const rows: Array<Record<string, string>> = [];
    for (const mb of SIZES_MB) {
      const { file, upload } = await sample(dir, mb);
      const sides: Sides = {
        cli: async () => {
          execFileSync("clamdscan", ["-c", conf, "--stream", "--no-summary", file]);
        },
        http: async () => {
          await postPrepared(`${server.url}/analyzer/antivirus`, upload);
        },
      };
      rows.push(row(mb, await measure(sides, server.pid)));
    }
    console.table(rows);
    console.log(`load at the end ${(await readFile("/proc/loadavg", "utf8")).trim()}`);
    console.log("target: Loupe ≤ 1.2× clamdscan --stream");
  } finally {
    await server.stop();
    await clamd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
