/**
 * One call for everything: a 20 MB file through `POST /analyzer/all` versus the slowest single
 * processor route on the same file, in alternating rounds (so drift hits both), best of each.
 * Target: /analyzer/all costs at most 1.2 × the slowest single route. Then the tree: a zip of
 * 1,000 small members fully analysed (hashes, antivirus, YARA, indicators per node), target ≤ 5 s.
 */
import os from "node:os";
import { startTestClamd } from "../../test/helpers/clamd.ts";
import { storedZip } from "../../test/helpers/zip.ts";
import { fmt } from "../lib/measure.ts";
import { multipartBody, postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";

const MB = Number(process.env.BENCH_ALL_MB ?? 20);
const ROUNDS = Number(process.env.BENCH_ALL_ROUNDS ?? 5);
const SINGLES = ["extractor", "antivirus", "iocs"];
const MEMBERS = Number(process.env.BENCH_ALL_MEMBERS ?? 1000);
const TREE_RULES = 'rule gate { strings: $a = "/gate" condition: $a }';

/** Report-like text with indicators, so the extractor and the indicator scan have real work. */
function sample(bytes: number): Buffer {
  const line =
    "Beacon to hxxps://lantern-c2[.]org/gate.php from 45.77.12.9, dropped C:\\Users\\Public\\a.exe.\n";
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

async function timed(url: string, upload: ReturnType<typeof multipartBody>): Promise<number> {
  const t = performance.now();
  await postPrepared(url, upload);
  return performance.now() - t;
}

async function main(): Promise<void> {
  const clamd = await startTestClamd(100_000_000);
  const server = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
    MAX_FILE_SIZE: "100000000",
  });
  try {
    const upload = multipartBody(sample(MB * 1_000_000), "report.txt");
    console.log(`/analyzer/all benchmark — ${MB} MB text, ${os.cpus().length} cores, best of ${ROUNDS}`);
    const best: Record<string, number> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of [...SINGLES, "all"]) {
        const ms = await timed(`${server.url}/analyzer/${name}`, upload);
        best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, ms);
      }
    }
    for (const [name, ms] of Object.entries(best))
      console.log(`${`/analyzer/${name}`.padEnd(20)} ${fmt(ms, 0).padStart(7)} ms`);
    const slowest = SINGLES.reduce((a, b) => ((best[a] ?? 0) >= (best[b] ?? 0) ? a : b));
    const ratio = (best.all ?? 0) / (best[slowest] ?? 1);
    console.log(`\nall / slowest single (${slowest}): ${fmt(ratio, 2)} × (target ≤ 1.2 ×)`);
    if (ratio > 1.2) process.exitCode = 1;
    await treeBench(server.url);
  } finally {
    await server.stop();
    await clamd.stop();
  }
}

await main();

/** A zip of MEMBERS small notes, each with indicators, through /analyzer/all with rules: every node analysed. */
async function treeBench(url: string): Promise<void> {
  const members: Record<string, string> = {};
  for (let i = 0; i < MEMBERS; i++)
    members[`note-${i}.txt`] =
      `Note ${i}: beacon to https://c2-${i}.example-bad.net/gate from 10.0.${i % 250}.7\n`;
  const zip = multipartBody(storedZip(members), "notes.zip", { rules: TREE_RULES });
  const times: Record<string, number> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of ["all", "extractor", "antivirus", "rulematch"]) {
      const ms = await timed(
        `${url}/analyzer/${name}`,
        name === "antivirus" || name === "extractor" ? multipartBody(storedZip(members), "notes.zip") : zip,
      );
      times[name] = Math.min(times[name] ?? Number.POSITIVE_INFINITY, ms);
    }
  }
  console.log(`\nthe tree: a zip of ${MEMBERS} small members, best of ${ROUNDS}`);
  for (const [name, ms] of Object.entries(times))
    console.log(`${`/analyzer/${name}`.padEnd(20)} ${fmt(ms, 0).padStart(7)} ms`);
  console.log(`every node analysed by /analyzer/all: ${fmt((times.all ?? 0) / 1000, 2)} s (target ≤ 5 s)`);
  if ((times.all ?? 0) > 5000) process.exitCode = 1;
}
