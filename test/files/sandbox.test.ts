/**
 * The sandbox pool on real child processes: memory held outside the V8 heap, an exhausted
 * heap, an endless loop and a crash each end that one job with its kind of failure, the pool
 * replaces the process, and the next job is answered.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { findPrlimit } from "../../src/files/sandbox/memory.ts";
import { SandboxFailure, SandboxPool } from "../../src/files/sandbox/pool.ts";
import type { SandboxTestTask } from "../fixtures/sandbox/jobs.ts";

const JOBS = new URL("../fixtures/sandbox/jobs.ts", import.meta.url);

function pool(overrides: Partial<ConstructorParameters<typeof SandboxPool>[0]> = {}) {
  return new SandboxPool<SandboxTestTask, unknown>({
    label: "Test job",
    module: JOBS,
    memoryMb: 256,
    timeoutMs: 20_000,
    prlimit: findPrlimit(),
    size: 1,
    minIdle: 0,
    idleMs: 60_000,
    ...overrides,
  });
}

async function failure(p: Promise<unknown>): Promise<SandboxFailure> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SandboxFailure, String(err));
    return err;
  }
  assert.fail("the job succeeded");
}

const never = () => new AbortController().signal;

describe("sandbox pool", () => {
  const pools: SandboxPool<SandboxTestTask, unknown>[] = [];
  const make = (o?: Parameters<typeof pool>[0]) => {
    const p = pool(o);
    pools.push(p);
    return p;
  };
  after(() => Promise.all(pools.map((p) => p.close())));

  it("answers a job in another process, and reuses that process", async () => {
    const p = make();
    assert.equal(await p.run({ kind: "echo", value: "hello" }, never()), "hello");
    const first = await p.run({ kind: "pid" }, never());
    assert.notEqual(first, process.pid);
    assert.equal(await p.run({ kind: "pid" }, never()), first);
  });

  it("stops a process whose resident memory passes the limit (buffers outside the V8 heap)", async () => {
    const p = make();
    const before = await p.run({ kind: "pid" }, never());
    const err = await failure(p.run({ kind: "buffers", mb: 1024 }, never()));
    assert.equal(err.kind, "resource_limit");
    assert.match(err.message, /more than 256 MB/);
    assert.notEqual(await p.run({ kind: "pid" }, never()), before, "a fresh process took its place");
    assert.equal(p.lastFailure?.kind, "resource_limit");
  });

  it("retires a process that kept more than half its memory, and the next job gets a fresh one at once", async () => {
    const p = make();
    const first = await p.run({ kind: "pid" }, never());
    assert.equal(await p.run({ kind: "buffers", mb: 160 }, never()), 10);
    const next = await p.run({ kind: "pid" }, never());
    assert.notEqual(next, first);
  });

  it("refuses one allocation far past the limit at once (RLIMIT_DATA), before it is resident", async () => {
    assert.ok(findPrlimit(), "prlimit (util-linux) is installed");
    const p = make();
    const before = await p.run({ kind: "pid" }, never());
    const err = await failure(p.run({ kind: "burst", mb: 8192 }, never()));
    assert.equal(err.kind, "resource_limit");
    // Refused inside (not killed by the watchdog once resident): the same process goes on.
    assert.equal(await p.run({ kind: "pid" }, never()), before);
  });

  it("reports an exhausted V8 heap as resource_limit", async () => {
    const err = await failure(make().run({ kind: "heap" }, never()));
    assert.equal(err.kind, "resource_limit");
  });

  it("stops an endless loop at the time limit", async () => {
    const p = make({ timeoutMs: 500 });
    const err = await failure(p.run({ kind: "spin" }, never()));
    assert.equal(err.kind, "timeout");
    assert.equal(await p.run({ kind: "echo", value: "again" }, never()), "again");
  });

  it("reports a crash as engine_error, and a thrown error with its message", async () => {
    const p = make();
    assert.equal((await failure(p.run({ kind: "crash" }, never()))).kind, "engine_error");
    const thrown = await failure(p.run({ kind: "throw", message: "bad header" }, never()));
    assert.equal(thrown.kind, "engine_error");
    assert.match(thrown.message, /bad header/);
  });

  it("queues jobs past its size, and a caller that gives up leaves the queue", async () => {
    const p = make({ timeoutMs: 1000 });
    const spinning = failure(p.run({ kind: "spin" }, never()));
    const gaveUp = p.run({ kind: "echo", value: "late" }, AbortSignal.timeout(50));
    await assert.rejects(gaveUp);
    const queued = p.run({ kind: "echo", value: "queued" }, never());
    assert.equal((await spinning).kind, "timeout");
    assert.equal(await queued, "queued");
  });

  it("reports a job module that cannot load, without restarting it in a loop", async () => {
    const p = make({ module: new URL("../fixtures/sandbox/broken.ts", import.meta.url), minIdle: 1 });
    const err = await failure(p.run({ kind: "pid" }, never()));
    assert.equal(err.kind, "engine_error");
    assert.match(err.message, /broken/);
    assert.match(p.startFailure ?? "", /broken/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(p.started, 0, "no process is kept restarting");
  });

  it("tells every job waiting on a module that cannot load why, and starts nothing more", async () => {
    const p = make({ module: new URL("../fixtures/sandbox/broken.ts", import.meta.url) });
    const errors = await Promise.all([1, 2, 3].map(() => failure(p.run({ kind: "pid" }, never()))));
    for (const err of errors) assert.match(err.message, /broken/);
    assert.equal(p.started, 0);
  });

  it("keeps minIdle processes warm and stops the others when idle", async () => {
    const p = make({ size: 2, minIdle: 1, idleMs: 200 });
    await Promise.all([
      p.run({ kind: "spin" }, AbortSignal.timeout(300)).catch(() => null),
      p.run({ kind: "pid" }, never()),
    ]);
    for (let i = 0; i < 50 && p.started > 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(p.started, 1);
  });
});
