/**
 * Does a files process give its memory back? 2,000 mixed requests (thumbnails, extractions,
 * rule matches, antivirus scans, and bombs: zip-of-zeros, pixel-bomb headers, a deflate bomb in a
 * PDF) against a real process, then idle; compares its idle RSS with its fresh idle RSS
 * (target ≤ 1.5×). Idle is read 1, 2 and 3 pool idle timeouts (WORKER_IDLE_MS) after the burst.
 */
import sharp from "sharp";
import { request } from "undici";
import { buildLayer } from "../../test/fuzz/structured/archives.ts";
import { buildPdf } from "../../test/fuzz/structured/documents.ts";
import { EICAR, startTestClamd } from "../../test/helpers/clamd.ts";
import { simplePdf } from "../../test/helpers/documents.ts";
import { multipart } from "../../test/helpers/hostile.ts";
import { pngBombHeader } from "../../test/helpers/images.ts";
import { startFilesProcess } from "../../test/helpers/real-process.ts";
import { fmt, memoryOf } from "../lib/measure.ts";

const REQUESTS = Number(process.env.MEMORY_REQUESTS ?? 2000);
/** The pools' idle timeout for the run (WORKER_IDLE_MS), and how long the run then stays idle. */
const IDLE_MS = Number(process.env.MEMORY_IDLE_MS ?? 60_000); // the shipped WORKER_IDLE_MS

interface Upload {
  kind: string;
  path: string;
  body: Buffer;
  contentType: string;
}

/** A zip holding `copies` deflated entries of `bytes` zero bytes each (the bomb shape). */
const zerosZip = (copies: number, bytes: number): Buffer =>
  buildLayer(
    {
      kind: "zip",
      width: copies,
      name: "zeros.bin",
      lie: "true",
      inner: { kind: "leaf", fill: "zeros", bytes },
    },
    [],
  );

async function uploads(): Promise<Upload[]> {
  const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: "#3a7" } })
    .jpeg()
    .toBuffer();
  const file = (kind: string, path: string, name: string, value: Buffer, rules?: string): Upload => {
    const parts = [
      ...(rules ? [{ name: "rules", value: rules }] : []),
      { name: "file", filename: name, value },
    ];
    return { kind, path, ...multipart(parts) };
  };
  const pdf = simplePdf("Memory run about spyware.", { title: "t", author: "a", created: "D:20260101" });
  return [
    file("thumbnail", "/converter/thumbnail?width=300&height=200", "p.jpg", photo),
    file("extractor pdf", "/analyzer/extractor", "d.pdf", pdf),
    file(
      "rulematch 2 MB",
      "/analyzer/rulematch",
      "b.bin",
      Buffer.alloc(2_000_000, 0x41),
      'rule a { strings: $a = "AAAAB" condition: $a }',
    ),
    file("antivirus", "/analyzer/antivirus", "e.com", EICAR),
    file("bomb: zip of 6 × 20 MB zeros", "/analyzer/extractor", "z.zip", zerosZip(6, 20 << 20)),
    file(
      "bomb: PNG header 70000²",
      "/converter/thumbnail?width=300&height=200",
      "b.png",
      pngBombHeader(70_000, 70_000),
    ),
    file(
      "bomb: PDF with a 16 MB deflate stream",
      "/analyzer/extractor",
      "b.pdf",
      buildPdf({
        pages: 3,
        cycle: "none",
        countLie: 0,
        lengthSkew: 0,
        objStmN: 0,
        xrefShape: "true",
        nesting: 0,
        bombBytes: 16 << 20,
      }),
    ),
  ];
}

export async function filesMemoryReturns(): Promise<void> {
  const clamd = await startTestClamd(50_000_000).catch(() => undefined);
  const server = await startFilesProcess({
    WORKER_IDLE_MS: String(IDLE_MS),
    ...(clamd && "socket" in clamd.address
      ? { CLAMD_SOCKET: clamd.address.socket }
      : { CLAMD_HOST: "127.0.0.1", CLAMD_PORT: "1" }),
  });
  try {
    await new Promise((r) => setTimeout(r, 3000));
    const fresh = memoryOf(server.pid).rssMb;
    const list = await uploads();
    const statuses = new Map<string, number>();
    let peak = fresh;
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < REQUESTS) {
          const u = list[next++ % list.length]!;
          const res = await request(server.url + u.path, {
            method: "POST",
            body: u.body,
            headers: { "content-type": u.contentType },
          });
          await res.body.arrayBuffer();
          const key = `${u.kind} → ${res.statusCode}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          peak = Math.max(peak, memoryOf(server.pid).rssMb);
        }
      }),
    );
    const right = memoryOf(server.pid).rssMb;
    const samples: string[] = [];
    const idleStart = Date.now();
    for (const at of [1, 2, 3].map((k) => k * IDLE_MS)) {
      await new Promise((r) => setTimeout(r, idleStart + at - Date.now()));
      samples.push(`${fmt(memoryOf(server.pid).rssMb, 0)} MB at +${fmt(at / 1000, 0)} s`);
    }
    const idle = memoryOf(server.pid).rssMb;
    console.log(
      `files memory: ${REQUESTS} mixed requests (4 in flight) including bombs${clamd ? "" : " (no clamd: antivirus answers without it)"}`,
    );
    console.table([...statuses.entries()].sort().map(([k, n]) => ({ "request → status": k, count: n })));
    console.log(`fresh idle RSS ${fmt(fresh)} MB; peak seen ${fmt(peak)} MB; right after ${fmt(right)} MB`);
    console.log(`idle after (pools' idle timeout ${IDLE_MS / 1000} s): ${samples.join(", ")}`);
    console.log(`ratio idle after / fresh idle: ${fmt(idle / fresh, 2)}× (target ≤ 1.5×)`);
    if (server.child.exitCode !== null || server.child.signalCode !== null)
      console.log("files process DIED during the run");
  } finally {
    await server.close();
    await clamd?.stop();
  }
}
