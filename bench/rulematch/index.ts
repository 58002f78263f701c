/**
 * YARA through Loupe (HTTP, YARA-X in a worker) versus Debian's `yara` CLI on the same 100 MB file
 * and 50-rule set; cold versus warm (cached compile) requests; health-check latency while 8 scans run.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { request } from "undici";
import { fmt, percentiles } from "../lib/measure.ts";
import { multipartBody, postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";

const SIZE_MB = Number(process.env.BENCH_RULEMATCH_MB ?? 100);

function ruleSet(salt: string): string {
  const rules: string[] = [];
  for (let i = 0; i < 50; i++) {
    if (i % 3 === 0)
      rules.push(
        `rule text_${i} { strings: $a = "indicator-${i}-${salt}" $b = "beacon${i}" nocase condition: any of them }`,
      );
    else if (i % 3 === 1)
      rules.push(
        `rule hex_${i} { strings: $h = { 4D 5A ?? ?? [2-6] ${(i % 256).toString(16).padStart(2, "0")} 45 } condition: $h }`,
      );
    else rules.push(`rule re_${i} { strings: $r = /callback-${i}\\.[a-z]{3,8}\\.example/ condition: $r }`);
  }
  return rules.join("\n");
}

function corpus(): Buffer {
  const buf = Buffer.alloc(SIZE_MB * 1024 * 1024);
  let seed = 7;
  for (let i = 0; i < buf.length; i += 4) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    buf.writeUInt32LE(seed, i);
  }
  for (let i = 0; i < 200; i++)
    buf.write(`callback-${i % 50}.abcdef.example beacon${i % 50}`, (i * 524287) % (buf.length - 64));
  return buf;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-bench-yara-"));
  const server = await startChildServer(["files", "serve"], {
    MAX_FILE_SIZE: String(SIZE_MB * 1024 * 1024 + 10_000_000),
    SCAN_TIMEOUT_MS: "600000",
    CLAMD_SOCKET: "/nonexistent",
  });
  try {
    const data = corpus();
    const rules = ruleSet("base");
    const filePath = path.join(dir, "corpus.bin");
    const rulesPath = path.join(dir, "rules.yar");
    await writeFile(filePath, data);
    await writeFile(rulesPath, rules);
    const url = `${server.url}/analyzer/rulematch`;
    console.log(`rulematch benchmark — ${os.cpus().length} cores, ${SIZE_MB} MB file, 50 rules`);

    // Warm the worker once with another rule set so the first timed request is cold for these rules.
    await postPrepared(url, multipartBody(Buffer.from("warm"), "w.bin", { rules: ruleSet("warmup") }));
    const upload = multipartBody(data, "corpus.bin", { rules });
    const times = { loupe: [] as number[], cli: [] as number[] };
    const scanMs: number[] = [];
    let cold: { ms: number; compile: number } | undefined;
    let warmCompile = 0;
    let matchCount = 0;
    for (let round = 0; round < 3; round++) {
      let t = performance.now();
      execFileSync("yara", ["-w", rulesPath, filePath], { maxBuffer: 1 << 26 });
      times.cli.push(performance.now() - t);
      t = performance.now();
      const body = (await postPrepared(url, upload)) as {
        processors: {
          rulematch: {
            metadata: { compile_ms: number; scan_ms: number; rules_cached: boolean };
            analysis: { matches: unknown[] };
          };
        };
      };
      const ms = performance.now() - t;
      times.loupe.push(ms);
      scanMs.push(body.processors.rulematch.metadata.scan_ms);
      const meta = body.processors.rulematch.metadata;
      if (!meta.rules_cached && !cold) cold = { ms, compile: meta.compile_ms };
      else warmCompile = meta.compile_ms;
      matchCount = body.processors.rulematch.analysis.matches.length;
    }
    const best = (xs: number[]) => Math.min(...xs);
    console.log(`yara CLI      : best ${fmt(best(times.cli))} ms`);
    console.log(
      `Loupe (HTTP)  : best ${fmt(best(times.loupe))} ms (upload + YARA-X scan), ${matchCount} rules matched; YARA-X scan alone ${fmt(Math.min(...scanMs))} ms`,
    );
    console.log(
      `ratio         : Loupe takes ${fmt(best(times.loupe) / best(times.cli), 2)}× the CLI's time (target ≤ 1.5×)`,
    );
    if (cold) {
      console.log(
        `compile phase : cold ${fmt(cold.compile, 2)} ms, warm ${fmt(warmCompile, 2)} ms (cached) → ${warmCompile === 0 ? "compilation skipped entirely" : `${fmt(cold.compile / warmCompile)}× faster`} (target ≥ 10×)`,
      );
    }

    // Health-check latency while 8 scans of a 10 MB file run.
    const small = multipartBody(data.subarray(0, 10 * 1024 * 1024), "part.bin", { rules });
    let running = true;
    const latencies: number[] = [];
    const prober = (async () => {
      while (running) {
        const t = performance.now();
        const res = await request(`${server.url}/`);
        await res.body.text();
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const t = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, () => postPrepared(`${server.url}/analyzer/rulematch`, small)),
    );
    const scansMs = performance.now() - t;
    running = false;
    await prober;
    const p = percentiles(latencies);
    console.log(
      `8 concurrent 10 MB scans took ${fmt(scansMs)} ms; meanwhile GET / answered ${latencies.length}× with p50 ${fmt(p.p50)} ms, p99 ${fmt(p.p99)} ms, max ${fmt(Math.max(...latencies))} ms`,
    );
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
