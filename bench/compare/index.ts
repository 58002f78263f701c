/**
 * `./loupe bench compare`: Loupe's files server against a Mandolin-style Python peer (FastAPI,
 * Pillow, yara-python compiling per call) on the same requests, in alternating rounds at 1, 4
 * and 16 in flight; prints each side's best round and the ratio. Outputs are checked first.
 * Settings: BENCH_ROUNDS (3), BENCH_COMPARE_MEASURES, BENCH_COMPARE_INFLIGHT, BENCH_COMPARE_SCALE,
 * BENCH_PEER_WORKERS (4, as Mandolin's image); `--record` rewrites the recorded thumbnail hashes,
 * `--check` only checks outputs.
 */
import os from "node:os";
import { request } from "undici";
import { fmt, type RunStats, runConcurrent } from "../lib/measure.ts";
import { type MultipartBody, multipartBody } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";
import { type ImageInput, phonePhotos, ruleCases, smallImages } from "./inputs.ts";
import { checkThumbnailHashes, matchesOf, normalizeMatches, pixelHash } from "./outputs.ts";
import { groupCpuSeconds, peerEnvironment, processTreeCpuSeconds, startPeer } from "./peer.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCALE = Number(process.env.BENCH_COMPARE_SCALE ?? 1);
const MEASURES = (process.env.BENCH_COMPARE_MEASURES ?? "photos,small,rules").split(",");
const IN_FLIGHT = (process.env.BENCH_COMPARE_INFLIGHT ?? "1,4,16").split(",").map(Number);
const PEER_WORKERS = Number(process.env.BENCH_PEER_WORKERS ?? 4);
const RECORD = process.argv.includes("--record");
const CHECK_ONLY = process.argv.includes("--check");

/** One request, identical for both sides: a path (with query) and a prepared multipart body. */
interface Call {
  key: string;
  path: string;
  upload: MultipartBody;
}

interface Measure {
  name: string;
  target: number;
  calls: Call[];
  /** Requests per round, before BENCH_COMPARE_SCALE. */
  perRound: number;
}

const STRATEGIES = ["fit", "pad", "cover", "contain"] as const;

function thumbnailCalls(images: ImageInput[], pick: (i: number) => string): Call[] {
  return images.map((img, i) => {
    const query = pick(i);
    return {
      key: `${img.name}?${query}`,
      path: `/converter/thumbnail?${query}`,
      upload: multipartBody(img.bytes, img.name),
    };
  });
}

async function measures(): Promise<Measure[]> {
  const all: Measure[] = [];
  if (MEASURES.includes("photos")) {
    const calls = thumbnailCalls(await phonePhotos(), () => "width=256&height=256&strategy=fit");
    all.push({ name: "thumbnails fit 256×256, phone photos", target: 5, calls, perRound: 16 });
  }
  if (MEASURES.includes("small")) {
    const calls = thumbnailCalls(await smallImages(), (i) => {
      const strategy = STRATEGIES[i % STRATEGIES.length] ?? "fit";
      return `width=200&height=150&strategy=${strategy}${strategy === "pad" ? "&color=white" : ""}`;
    });
    all.push({ name: "thumbnails of small images (≤ 640 px, 6 formats)", target: 2, calls, perRound: 96 });
  }
  if (MEASURES.includes("rules")) {
    const calls = ruleCases().map((c) => ({
      key: c.name,
      path: "/analyzer/rulematch",
      upload: multipartBody(c.sample, `${c.name}.bin`, { rules: c.rules }),
    }));
    all.push({ name: "rulematch, 7 rule files × 16 samples", target: 2, calls, perRound: 112 });
  }
  return all;
}

async function post(base: string, call: Call): Promise<Buffer> {
  const res = await request(base + call.path, {
    method: "POST",
    body: call.upload.body,
    headers: { "content-type": call.upload.contentType },
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200)
    throw new Error(`${call.key}: HTTP ${res.statusCode} ${bytes.toString().slice(0, 200)}`);
  return bytes;
}

/** Loupe's thumbnails against the recorded pixels; match lists of both sides against each other. */
async function checkOutputs(list: Measure[], peerUrl: string, loupeUrl: string): Promise<number> {
  const hashes: Record<string, string> = {};
  const problems: string[] = [];
  let ruleHits = 0;
  for (const m of list) {
    for (const call of m.calls) {
      const [mine, theirs] = await Promise.all([post(loupeUrl, call), post(peerUrl, call)]);
      if (call.path.startsWith("/converter/")) {
        const [a, b] = await Promise.all([pixelHash(mine), pixelHash(theirs)]);
        hashes[call.key] = a.hash;
        if (a.width !== b.width || a.height !== b.height)
          problems.push(`${call.key}: Loupe ${a.width}×${a.height}, peer ${b.width}×${b.height}`);
      } else {
        const a = normalizeMatches(matchesOf(JSON.parse(mine.toString()), "rulematch"));
        const b = normalizeMatches(matchesOf(JSON.parse(theirs.toString()), "yara"));
        ruleHits += a.length;
        if (a.join("\n") !== b.join("\n"))
          problems.push(`${call.key}: match lists differ (Loupe ${a.length} lines, peer ${b.length})`);
      }
    }
  }
  if (Object.keys(hashes).length > 0) problems.push(...checkThumbnailHashes(hashes, RECORD));
  const rules = list.find((m) => m.name.startsWith("rulematch"));
  console.log(
    `outputs: ${Object.keys(hashes).length} thumbnails checked against recorded pixels and peer sizes` +
      (rules
        ? `, ${rules.calls.length} match lists (${ruleHits} rule and string hits) compared with the peer`
        : "") +
      ` — ${problems.length === 0 ? "all identical" : `${problems.length} problems`}`,
  );
  for (const p of problems.slice(0, 20)) console.log(`  ✗ ${p}`);
  return problems.length;
}

/** A round's figures plus the server's CPU milliseconds per request (all its threads/processes). */
type SideStats = RunStats & { cpuMs: number };

async function side(
  base: string,
  m: Measure,
  inFlight: number,
  cpuSeconds: () => number,
): Promise<SideStats> {
  const total = Math.max(inFlight, Math.round(m.perRound * SCALE));
  const cpu0 = cpuSeconds();
  const stats = await runConcurrent(total, inFlight, (i) => post(base, m.calls[i % m.calls.length] as Call));
  return { ...stats, cpuMs: ((cpuSeconds() - cpu0) * 1000) / total };
}

async function main(): Promise<void> {
  console.log(
    `compare benchmark — ${os.cpus().length} cores; Python peer (uvicorn, ${PEER_WORKERS} workers) vs Loupe files server; best of ${ROUNDS} alternating rounds`,
  );
  console.log(
    `GLIBC_TUNABLES: Loupe "${process.env.GLIBC_TUNABLES ?? ""}", peer "${peerEnvironment().GLIBC_TUNABLES ?? ""}"`,
  );
  const t0 = performance.now();
  const list = await measures();
  console.log(`inputs generated in ${fmt((performance.now() - t0) / 1000)} s`);
  const peer = await startPeer(PEER_WORKERS);
  const loupe = await startChildServer(["files", "serve"], { CLAMD_SOCKET: "/nonexistent" }).catch(
    async (err) => {
      await peer.stop();
      throw err;
    },
  );
  let failures = 0;
  const rows: Array<Record<string, string>> = [];
  try {
    failures += await checkOutputs(list, peer.url, loupe.url);
    for (const m of CHECK_ONLY ? [] : list) {
      for (const inFlight of IN_FLIGHT) {
        let best = { peer: undefined as SideStats | undefined, loupe: undefined as SideStats | undefined };
        for (let round = 0; round < ROUNDS; round++) {
          const p = await side(peer.url, m, inFlight, () => groupCpuSeconds(peer.pgid));
          const l = await side(loupe.url, m, inFlight, () => processTreeCpuSeconds(loupe.pid));
          if (!best.peer || p.perSecond > best.peer.perSecond) best = { ...best, peer: p };
          if (!best.loupe || l.perSecond > best.loupe.perSecond) best = { ...best, loupe: l };
        }
        const p = best.peer as SideStats;
        const l = best.loupe as SideStats;
        failures += p.errors + l.errors;
        const ratio = l.perSecond / p.perSecond;
        rows.push({
          measure: m.name,
          "in flight": String(inFlight),
          "peer req/s": fmt(p.perSecond),
          "Loupe req/s": fmt(l.perSecond),
          ratio: `${fmt(ratio, 2)}×`,
          target: `≥ ${m.target}×`,
          "Loupe p50/p99 ms": `${fmt(l.p50)}/${fmt(l.p99)}`,
          "CPU ms/req peer/Loupe": `${fmt(p.cpuMs)}/${fmt(l.cpuMs)}`,
          errors: `${p.errors}/${l.errors}`,
        });
        console.log(
          `${m.name}, ${inFlight} in flight: peer ${fmt(p.perSecond)}/s, Loupe ${fmt(l.perSecond)}/s → ${fmt(ratio, 2)}× (target ≥ ${m.target}×)${ratio >= m.target ? "" : "  MISS"}; server CPU per request: peer ${fmt(p.cpuMs)} ms, Loupe ${fmt(l.cpuMs)} ms`,
        );
      }
    }
  } finally {
    await Promise.all([peer.stop(), loupe.stop()]);
  }
  console.table(rows);
  if (failures > 0) process.exitCode = 1;
}

await main();
