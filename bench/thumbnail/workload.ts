/**
 * A fixed thumbnail workload for instruction counting (`instructions.ts` runs it under callgrind):
 * every image file of DIR thumbnailed ROUNDS times, in this process (`direct`), through the
 * thumbnail pool as the service does (`pool`), or by one thumbnail process started with the
 * command in BENCH_CHILD_PREFIX (`child`: callgrind then counts that process alone). One extra
 * round warms everything up, so ROUNDS = 0 and ROUNDS = N give the cost of N rounds by difference.
 *   node bench/thumbnail/workload.ts DIR direct|pool|child ROUNDS WIDTH HEIGHT STRATEGY
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Strategy } from "../../src/files/converters/geometry.ts";
import type { ThumbnailLimits } from "../../src/files/converters/limits.ts";
import { makeThumbnail, type ThumbnailRequest } from "../../src/files/converters/thumbnail.ts";
import type { ChildAnswer } from "../../src/files/converters/thumbnail-child.ts";
import { createThumbnailPool } from "../../src/files/converters/thumbnail-pool.ts";

const [dir = ".", mode = "direct", rounds = "0", width = "200", height = "150", strategy = "fit"] =
  process.argv.slice(2);
const limits = { maxImagePixels: 100_000_000, timeoutMs: 600_000 };
const req = { width: Number(width), height: Number(height), strategy: strategy as Strategy };
const files = (await readdir(dir)).sort().map((name) => path.join(dir, name));

type Run = (input: string | Buffer, req: ThumbnailRequest, limits: ThumbnailLimits) => Promise<unknown>;

/** One thumbnail process, started under the given command (callgrind), fed one task at a time. */
async function oneChild(): Promise<{ run: Run; child: ChildProcess }> {
  const [prefix = process.execPath, ...prefixArgs] = (process.env.BENCH_CHILD_PREFIX ?? "")
    .split(" ")
    .filter(Boolean);
  const child = fork(new URL("../../src/files/converters/thumbnail-child.ts", import.meta.url), [], {
    execPath: prefix,
    execArgv: [
      ...prefixArgs,
      ...(prefixArgs.length > 0 ? [process.execPath] : []),
      "--disable-warning=ExperimentalWarning",
    ],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await once(child, "message");
  const run: Run = async (input, request, lim) => {
    child.send({ input, req: request, limits: lim });
    const [answer] = (await once(child, "message")) as [ChildAnswer];
    if (!answer.ok) throw new Error(answer.detail);
  };
  return { run, child };
}

sharp.cache(false);
const pool = mode === "pool" ? createThumbnailPool({ limits, idleMs: 600_000 }) : undefined;
const single = mode === "child" ? await oneChild() : undefined;
const run: Run = pool ? (i, r) => pool.run(i, r) : (single?.run ?? makeThumbnail);
for (let round = 0; round <= Number(rounds); round++) {
  for (const file of files) {
    // As the service passes them: uploads within UPLOAD_MEMORY_MAX (64 KiB) as bytes, larger ones by path.
    const input = (await stat(file)).size <= 64 * 1024 ? await readFile(file) : file;
    await run(input, req, limits);
  }
}
if (single) {
  // A disconnected thumbnail process exits by itself, which is when callgrind writes its counts.
  single.child.disconnect();
  await once(single.child, "exit");
}
await pool?.close();
