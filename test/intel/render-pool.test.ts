/**
 * Render processes (domain/render-pool.ts) on a real SQLite file: they render the same bytes as
 * rendering here, serve more tasks than processes in order, answer null for a subject with nothing
 * stored, and refuse work once closed. A process killed mid-task is replaced and the task answered
 * by the fresh one; killed twice, the task fails with the reason and the pool goes on.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { joined } from "../../src/common/chunks.ts";
import { createRenderPool, type RenderPool } from "../../src/intel/domain/render-pool.ts";
import { RENDER_CHUNK_BYTES, renderResult } from "../../src/intel/domain/render-task.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { saveFragment } from "../../src/intel/store/graph.ts";
import { freshDatabase } from "../helpers/intel-server.ts";

const ROOT = { superType: "OBSERVABLE", type: "DOMAIN", name: "render.example.org" };
const subject = { superType: ROOT.superType, type: ROOT.type, value: ROOT.name };

describe("render processes", () => {
  let store: Store;
  let pool: RenderPool;
  let url: string;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabase("sqlite");
    ({ url, drop } = fresh);
    store = await openStore(url);
    const ips = Array.from({ length: 20 }, (_, i) => ({
      superType: "OBSERVABLE",
      type: "IPV4",
      name: `192.0.2.${i}`,
    }));
    await saveFragment(
      store.db,
      ROOT,
      { entities: ips, relations: ips.map((ip) => ({ name: "resolves", from: ROOT, to: ip })), events: [] },
      "test",
    );
    pool = createRenderPool(url, 2, 1000);
  });
  after(async () => {
    await pool?.close();
    await store?.close();
    await drop?.();
  });

  it("renders the document and an export as rendering here does", async () => {
    const document = { subject, depth: 1, maxEntities: 100 };
    const stix = { ...document, export: { format: "stix" as const, context: { vendorNames: {} } } };
    for (const task of [document, stix]) {
      const here = await renderResult(store.db, task);
      const there = await pool.run(task);
      assert.ok(here && there);
      assert.equal(there.contentType, here.contentType);
      const parse = (bytes: Uint8Array) =>
        JSON.parse(Buffer.from(bytes).toString()) as Record<string, unknown>;
      const [a, b] = [parse(here.bytes), parse(joined(there.chunks))];
      // STIX bundles carry the time they were made; everything else is the same.
      for (const doc of [a, b]) delete doc.id;
      assert.deepEqual(stripTimes(b), stripTimes(a));
    }
  });

  it("sends a large render in slices of at most RENDER_CHUNK_BYTES, the same bytes as rendering here", async () => {
    const big = { superType: "OBSERVABLE", type: "DOMAIN", name: "big.render.example.org" };
    const names = Array.from({ length: 4000 }, (_, i) => ({
      superType: "OBSERVABLE",
      type: "DOMAIN",
      name: `sub-${i}.a-rather-long-name-to-pass-a-slice.big.render.example.org`,
    }));
    await saveFragment(
      store.db,
      big,
      { entities: names, relations: names.map((n) => ({ name: "has", from: big, to: n })), events: [] },
      "test",
    );
    const task = {
      subject: { superType: big.superType, type: big.type, value: big.name },
      depth: 1,
      maxEntities: 5000,
    };
    const here = await renderResult(store.db, task);
    const there = await pool.run(task);
    assert.ok(here && there);
    assert.ok(here.bytes.length > 2 * RENDER_CHUNK_BYTES, "large enough to need several slices");
    assert.ok(there.chunks.length > 2, "several slices, not one message");
    for (const chunk of there.chunks) assert.ok(chunk.length <= RENDER_CHUNK_BYTES);
    assert.ok(joined(there.chunks).equals(Buffer.from(here.bytes)), "byte-identical once joined");
  });

  it("serves more tasks than processes, each its own answer, and null for a subject never stored", async () => {
    const tasks = Array.from({ length: 6 }, (_, i) => ({ subject, depth: 1, maxEntities: 2 + i }));
    const answers = await Promise.all(tasks.map((t) => pool.run(t)));
    answers.forEach((answer, i) => {
      const doc = JSON.parse(joined(answer?.chunks ?? []).toString()) as { entities: unknown[] };
      assert.equal(doc.entities.length, 1 + i, "each task's own bound");
    });
    const none = await pool.run({
      subject: { ...subject, value: "never.example.org" },
      depth: 1,
      maxEntities: 10,
    });
    assert.equal(none, null);
  });

  it("replaces a process killed mid-task and answers the task from the fresh one", async () => {
    const killing = createRenderPool(url, 1, 60_000);
    try {
      const task = { subject, depth: 1, maxEntities: 100 };
      const here = await renderResult(store.db, task);
      // The process starts for this task (the pool had none): killed before it can answer.
      const others = await renderChildren(); // the shared pool's, still idle
      const answer = killing.run(task);
      const killed = await killNextProcess(others);
      const there = await answer;
      assert.ok(here && there);
      const entities = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString()).entities;
      assert.deepEqual(entities(joined(there.chunks)), entities(here.bytes));
      const alive = (await renderChildren()).filter((pid) => !others.includes(pid));
      assert.equal(alive.length, 1, "one fresh process answered");
      assert.ok(!alive.includes(killed));
      assert.ok(await killing.run(task));
    } finally {
      await killing.close();
    }
  });

  it("fails a task whose process is killed twice, with the reason, and serves the next", async () => {
    const killing = createRenderPool(url, 1, 200);
    try {
      const task = { subject, depth: 1, maxEntities: 100 };
      const others = await renderChildren();
      const answer = killing.run(task);
      answer.catch(() => {});
      const first = await killNextProcess(others);
      await killNextProcess([...others, first]);
      await assert.rejects(answer, /render process ended \(SIGKILL\), twice for this task/);
      // Past the pool's idle time the dead processes are not disconnected again (an unheard error
      // event that ended the whole service).
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(await killing.run(task), "the pool goes on with a fresh process");
    } finally {
      await killing.close();
    }
  });

  it("refuses work once closed", async () => {
    const closing = createRenderPool(url, 1, 1000);
    assert.ok(await closing.run({ subject, depth: 1, maxEntities: 5 }));
    await closing.close();
    await assert.rejects(closing.run({ subject, depth: 1, maxEntities: 5 }), /closed/);
  });
});

/** The render processes this test process started (children running render-process.ts). */
async function renderChildren(): Promise<number[]> {
  // This process's children from the kernel's own lists (a scan of all of /proc took long enough
  // for a fresh render process to boot and answer before it was seen).
  const found: number[] = [];
  for (const task of await readdir(`/proc/${process.pid}/task`)) {
    const children = await readFile(`/proc/${process.pid}/task/${task}/children`, "utf8").catch(() => "");
    for (const pid of children.split(" ").filter(Boolean)) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (cmdline.includes("render-process.ts")) found.push(Number(pid));
    }
  }
  return found;
}

/** Kills the first render process not in `spared` as soon as it exists; its pid. */
async function killNextProcess(spared: number[]): Promise<number> {
  for (;;) {
    const fresh = (await renderChildren()).find((pid) => !spared.includes(pid));
    if (fresh !== undefined) {
      process.kill(fresh, "SIGKILL");
      return fresh;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** A value with every ISO timestamp string replaced, so two renders a moment apart compare equal. */
function stripTimes(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "T"));
}
