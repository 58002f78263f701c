import sharp from "sharp";
import { request } from "undici";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { EICAR, startTestClamd } from "../../test/helpers/clamd.ts";
import { simplePdf } from "../../test/helpers/documents.ts";
import { startFakeVirusTotal, VT_KEY } from "../../test/helpers/fake-virustotal.ts";
import { type DbKind, freshDatabase, postgresSkipReason } from "../../test/helpers/intel-server.ts";
import { fmt, memoryOf, percentiles } from "../lib/measure.ts";
import { type MultipartBody, multipartBody } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";
import { workersScaling } from "../lib/workers.ts";
import { filesMemoryReturns } from "./memory.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);

async function timed(seconds: number, connections: number, next: (i: number) => Promise<string>) {
  const byKind = new Map<string, { ms: number[]; errors: number }>();
  const until = performance.now() + seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        let kind = "?";
        let ok = true;
        try {
          kind = await next(i++);
        } catch (err) {
          ok = false;
          kind = (err as { kind?: string }).kind ?? "error";
        }
        const entry = byKind.get(kind) ?? { ms: [], errors: 0 };
        entry.ms.push(performance.now() - t);
        if (!ok) entry.errors++;
        byKind.set(kind, entry);
      }
    }),
  );
  return byKind;
}

async function filesLoad(): Promise<void> {
  const clamd = await startTestClamd(50_000_000);
  const server = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
  });
  try {
    const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: "#3a7" } })
      .jpeg()
      .toBuffer();
    const uploads: Array<{ kind: string; path: string; body: MultipartBody }> = [
      {
        kind: "thumbnail",
        path: "/converter/thumbnail?width=300&height=200",
        body: multipartBody(photo, "p.jpg"),
      },
      {
        kind: "rulematch",
        path: "/analyzer/rulematch",
        body: multipartBody(Buffer.alloc(2_000_000, 0x41), "b.bin", {
          rules: 'rule a { strings: $a = "AAAAB" condition: $a }',
        }),
      },
      { kind: "antivirus", path: "/analyzer/antivirus", body: multipartBody(EICAR, "e.com") },
      {
        kind: "extractor",
        path: "/analyzer/extractor",
        body: multipartBody(
          simplePdf("Load test document about spyware.", { title: "t", author: "a", created: "D:20260101" }),
          "d.pdf",
        ),
      },
    ];
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(memoryOf(server.pid).rssMb), 1000);
    const results = await timed(SECONDS, 50, async (i) => {
      const u = uploads[i % uploads.length]!;
      const res = await request(server.url + u.path, {
        method: "POST",
        body: u.body.body,
        headers: { "content-type": u.body.contentType },
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw Object.assign(new Error(String(res.statusCode)), { kind: u.kind });
      return u.kind;
    });
    clearInterval(sampler);
    console.log(`files: 50 concurrent mixed requests for ${SECONDS} s`);
    console.table(
      [...results.entries()].map(([kind, r]) => ({
        operation: kind,
        "req/s": fmt(r.ms.length / SECONDS),
        "p50 ms": fmt(percentiles(r.ms).p50),
        "p99 ms": fmt(percentiles(r.ms).p99),
        errors: r.errors,
      })),
    );
    console.log(
      `files RSS over time (MB, every ${Math.max(1, Math.round(rss.length / 12))} s): ${rss
        .filter((_, k) => k % Math.max(1, Math.round(rss.length / 12)) === 0)
        .map((m) => fmt(m, 0))
        .join(" → ")}`,
    );
  } finally {
    await server.stop();
    await clamd.stop();
  }
}

async function seedCached(url: string): Promise<string> {
  const store = await openStore(url);
  try {
    const u = await createUser(store.db, "load", "load-password", false);
    return (await createToken(store.db, u.id)).key;
  } finally {
    await store.close();
  }
}

async function intelCached(kind: DbKind): Promise<void> {
  const db = await freshDatabase(kind);
  const vt = await startFakeVirusTotal({});
  try {
    const key = await seedCached(db.url);
    const store = await openStore(db.url);
    await addCredentials(store.db, "virustotal", { api_key: VT_KEY });
    await store.close();
    const server = await startChildServer(
      ["intel", "serve"],
      { DATABASE_URL: db.url, INTEL_CONNECTORS: "virustotal", INTEL_VENDOR_URL_VIRUSTOTAL: vt.url },
      "/",
      "INTEL_PORT",
    );
    try {
      const headers = { authorization: `Token ${key}`, "content-type": "application/json" };
      const body = JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: "cached.example" });
      for (;;) {
        const r = await request(`${server.url}/api/request/`, { method: "POST", headers, body });
        await r.body.arrayBuffer();
        if (r.statusCode === 200) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      const results = await timed(SECONDS, 100, async () => {
        const r = await request(`${server.url}/api/request/`, { method: "POST", headers, body });
        await r.body.arrayBuffer();
        if (r.statusCode !== 200) throw new Error(String(r.statusCode));
        return "cached";
      });
      const r = results.get("cached") ?? { ms: [], errors: 0 };
      const p = percentiles(r.ms);
      console.log(
        `intel ${kind}: 100 connections for ${SECONDS} s: ${fmt(r.ms.length / SECONDS, 0)} req/s, p50 ${fmt(p.p50)} ms, p99 ${fmt(p.p99)} ms, errors ${r.errors + (results.get("error")?.errors ?? 0)}`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await vt.close();
    await db.drop();
  }
}

if (process.argv.includes("--memory")) {
  await filesMemoryReturns();
  process.exit(0);
}
console.log(`load benchmark — ${SECONDS} s per phase`);
await filesLoad();
await filesMemoryReturns();
await intelCached("sqlite");
if (await postgresSkipReason().catch(() => "unreachable")) console.log("intel postgres: skipped");
else await intelCached("postgres");
await workersScaling();
