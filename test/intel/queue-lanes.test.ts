/**
 * The queue's lanes on SQLite and PostgreSQL: an interactive job enqueued after 1,000 bulk jobs is
 * claimed before them, a promoted bulk job jumps the line, and a worker keeps slots free for
 * interactive jobs while bulk jobs fill the rest.
 */
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { createJobQueue } from "../../src/intel/queue/jobs.ts";
import type { Store } from "../../src/intel/store/db.ts";
import { BULK, claimJob, insertJob, promoteJob } from "../../src/intel/store/jobs.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeOnEachDatabase("queue lanes", (db) => {
  let store: Store;
  before(async () => {
    store = await db.store();
  });

  it("claims an interactive job enqueued after 1,000 bulk jobs before the remaining bulk jobs", async () => {
    const { db } = store;
    for (let i = 0; i < 1000; i++) await insertJob(db, `bulk-${i}`, BULK);
    const early = await claimJob(db, "w", 60_000);
    assert.equal(early?.request_id, "bulk-0", "with nothing interactive, bulk jobs run oldest first");
    await insertJob(db, "single-1");
    await insertJob(db, "single-2");
    assert.equal((await claimJob(db, "w", 60_000))?.request_id, "single-1");
    assert.equal((await claimJob(db, "w", 60_000))?.request_id, "single-2");
    assert.equal((await claimJob(db, "w", 60_000))?.request_id, "bulk-1");
    assert.equal(await claimJob(db, "w", 60_000, true), undefined, "interactive only: no bulk job");
  });

  it("claims a promoted bulk job (a client now waits for it) before the other bulk jobs", async () => {
    const { db } = store;
    await promoteJob(db, "bulk-900");
    await promoteJob(db, "no-such-request");
    assert.equal((await claimJob(db, "w", 60_000))?.request_id, "bulk-900");
    assert.equal((await claimJob(db, "w", 60_000))?.request_id, "bulk-2");
    await db.deleteFrom("jobs").execute();
  });

  it("runs bulk jobs in the slots interactive ones leave, and an interactive job at once", async () => {
    const queue = createJobQueue(store.db, {
      leaseMs: 60_000,
      concurrency: 3,
      interactiveSlots: 1,
      pollMs: 20,
    });
    const started: string[] = [];
    const release = new Map<string, () => void>();
    queue.start(async (id) => {
      started.push(id);
      await new Promise<void>((resolve) => release.set(id, resolve));
    });
    try {
      for (let i = 0; i < 10; i++) await queue.enqueue(`b${i}`, undefined, "bulk");
      await waitFor(() => started.length === 2);
      await queue.enqueue("single");
      await waitFor(() => started.includes("single"));
      assert.deepEqual(
        started,
        ["b0", "b1", "single"],
        "two bulk slots of three; the third served the single ask",
      );
      release.get("b0")?.();
      await waitFor(() => started.length === 4);
      assert.equal(started[3], "b2");
    } finally {
      for (const done of release.values()) done();
      const stopping = queue.stop();
      // Jobs started while stopping wait for their release too.
      const releaser = setInterval(() => {
        for (const done of release.values()) done();
      }, 10);
      await stopping;
      clearInterval(releaser);
    }
  });
});
