/**
 * Antivirus through Loupe's HTTP route versus `clamdscan --stream` against the same clamd, on the
 * same files, in both of Loupe's ways to hand clamd a file: clamd reading the temp file by its path
 * (the default with the clamd Loupe runs) and the bytes streamed over INSTREAM while they arrive
 * (a clamd the operator names). The three sides alternate within each round (their order turned
 * every round) so a busy machine weighs on all alike; best and median are shown.
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

const SIDES = ["cli", "paths", "stream"] as const;
type Side = (typeof SIDES)[number];
type Sides = Record<Side, () => Promise<void>>;

/** One warm-up, then ROUNDS rounds in turned orders: wall times of every side, server CPU per request. */
async function measure(sides: Sides, serverPids: Record<Exclude<Side, "cli">, number>) {
  const wall: Record<Side, number[]> = { cli: [], paths: [], stream: [] };
  const serverCpu: Record<Exclude<Side, "cli">, number[]> = { paths: [], stream: [] };
  for (let r = -1; r < ROUNDS; r++) {
    const turn = ((r % SIDES.length) + SIDES.length) % SIDES.length;
    for (const side of [...SIDES.slice(turn), ...SIDES.slice(0, turn)]) {
      const pid = side === "cli" ? 0 : serverPids[side];
      const cpu0 = pid ? cpuMsOf(pid) : 0;
      const t0 = performance.now();
      await sides[side]();
      if (r < 0) continue;
      wall[side].push(performance.now() - t0);
      if (side !== "cli") serverCpu[side].push(cpuMsOf(pid) - cpu0);
    }
  }
  return { wall, serverCpu };
}

function row(mb: number, m: Awaited<ReturnType<typeof measure>>): Record<string, string> {
  const best = (v: number[]) => Math.min(...v);
  const median = (v: number[]) => percentiles(v).p50;
  const times = (v: number[]) => `${fmt(best(v))} / ${fmt(median(v))}`;
  const ratios = (v: number[]) =>
    `${fmt(best(v) / best(m.wall.cli), 2)}× / ${fmt(median(v) / median(m.wall.cli), 2)}×`;
  return {
    size: `${mb} MB`,
    "clamdscan --stream (ms)": times(m.wall.cli),
    "Loupe, by path (ms)": times(m.wall.paths),
    "ratio by path": ratios(m.wall.paths),
    "Loupe, INSTREAM (ms)": times(m.wall.stream),
    "ratio INSTREAM": ratios(m.wall.stream),
    "server CPU path / INSTREAM (ms)": `${fmt(median(m.serverCpu.paths))} / ${fmt(median(m.serverCpu.stream))}`,
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
  const serverEnv = { CLAMD_SOCKET: socket, MAX_FILE_SIZE: "60000000" };
  // The test clamd is configured as Loupe's own (same user, MaxFileSize above ours): `yes` is what
  // the default gives with the clamd Loupe runs.
  const byPath = await startChildServer(["files", "serve"], { ...serverEnv, FILES_CLAMD_SCAN_PATHS: "yes" });
  const streamed = await startChildServer(["files", "serve"], { ...serverEnv, FILES_CLAMD_SCAN_PATHS: "no" });
  const conf = path.join(clamd.dir, "clamd.conf");
  try {
    console.log(
      `antivirus benchmark — ${os.cpus().length} cores, load ${(await readFile("/proc/loadavg", "utf8")).trim()}`,
    );
    console.log(`${ROUNDS} rounds per size in turned orders after a warm-up, one clamd for every side`);
    console.log("each cell: best / median");
    const rows: Array<Record<string, string>> = [];
    for (const mb of SIZES_MB) {
      const { file, upload } = await sample(dir, mb);
      const sides: Sides = {
        cli: async () => {
          execFileSync("clamdscan", ["-c", conf, "--stream", "--no-summary", file]);
        },
        paths: async () => {
          await postPrepared(`${byPath.url}/analyzer/antivirus`, upload);
        },
        stream: async () => {
          await postPrepared(`${streamed.url}/analyzer/antivirus`, upload);
        },
      };
      rows.push(row(mb, await measure(sides, { paths: byPath.pid, stream: streamed.pid })));
    }
    console.table(rows);
    console.log(`load at the end ${(await readFile("/proc/loadavg", "utf8")).trim()}`);
    console.log("target: Loupe ≤ 1.2× clamdscan --stream");
  } finally {
    await byPath.stop();
    await streamed.stop();
    await clamd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
