/**
 * CPU profile of a Loupe files server under one `bench compare` load: the server runs with
 * `--cpu-prof` (one profile per thread, main and workers), and the profiles are summed by
 * package and by function. `node bench/compare/profile.ts photos|small|rules [in flight] [requests]`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { fmt, runConcurrent } from "../lib/measure.ts";
import { freePort } from "../lib/server.ts";
import { callsFor } from "./calls.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/** Where a frame's code lives: a package, Loupe's own source, Node's internals, or a VM bucket. */
function bucket(url: string, name: string): string {
  if (!url) return `(${name || "native"})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] ?? url;
  if (url.startsWith("node:")) return url.split("/").slice(0, 2).join("/");
  return path.relative(ROOT, url.replace("file://", ""));
}

function summarize(profile: CpuProfile): {
  total: number;
  byBucket: Map<string, number>;
  byFn: Map<string, number>;
} {
  const perSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const byBucket = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const n of profile.nodes) {
    const ms = (n.hitCount ?? 0) * perSample;
    if (ms === 0) continue;
    const b = bucket(n.callFrame.url, n.callFrame.functionName);
    byBucket.set(b, (byBucket.get(b) ?? 0) + ms);
    const fn = `${n.callFrame.functionName || "(anonymous)"} ${b}:${n.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + ms);
  }
  return { total: (profile.endTime - profile.startTime) / 1000, byBucket, byFn };
}

function top(map: Map<string, number>, n: number, requests: number): string {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, ms]) => `    ${fmt(ms / requests, 3).padStart(7)} ms/req  ${k}`)
    .join("\n");
}

async function main(): Promise<void> {
  const [load = "small", inFlightArg = "4", requestsArg = "400"] = process.argv.slice(2);
  const inFlight = Number(inFlightArg);
  const requests = Number(requestsArg);
  const list = await callsFor(load);
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-prof-"));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--disable-warning=ExperimentalWarning",
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      path.join(ROOT, "src/cli/main.ts"),
      "files",
      "serve",
    ],
    {
      env: { ...process.env, LOG_LEVEL: "warn", FILES_PORT: String(port), CLAMD_SOCKET: "/nonexistent" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await (await fetch(url)).arrayBuffer();
      break;
    } catch {
      if (i > 300) throw new Error("server did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const post = async (i: number) => {
    const c = list[i % list.length] as (typeof list)[number];
    const res = await fetch(url + c.path, {
      method: "POST",
      body: c.body.body,
      headers: { "content-type": c.body.contentType },
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
  };
  await runConcurrent(Math.min(40, requests), inFlight, post);
  const stats = await runConcurrent(requests, inFlight, post);
  console.log(
    `${load}, ${inFlight} in flight: ${fmt(stats.perSecond)} req/s during profiling (${stats.errors} errors)`,
  );
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".cpuprofile")).sort()) {
    const s = summarize(JSON.parse(await readFile(path.join(dir, file), "utf8")) as CpuProfile);
    const busy = [...s.byBucket.entries()].filter(([k]) => k !== "(idle)").reduce((a, [, v]) => a + v, 0);
    console.log(
      `\n${file}: ${fmt(s.total / 1000)} s profiled, ${fmt(busy / requests, 3)} ms busy per request`,
    );
    console.log(`  by package:\n${top(s.byBucket, 12, requests)}`);
    console.log(`  by function:\n${top(s.byFn, 15, requests)}`);
  }
  console.log(`\nprofiles kept in ${dir}`);
}

await main();
