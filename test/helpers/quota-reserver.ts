/**
 * A process that reserves quota slots: `node quota-reserver.ts '<json>'` opens the store at
 * `url`, makes `count` reservations at once and prints the ids granted as JSON. Two of them
 * side by side are two processes sharing a quota through the database.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { openStore } from "../../src/intel/store/db.ts";
import {
  type QuotaKey,
  type QuotaLimits,
  type QuotaWindows,
  reserveCall,
} from "../../src/intel/store/quotas.ts";

export interface ReserverJob {
  url: string;
  key: QuotaKey;
  limits: QuotaLimits;
  windows: QuotaWindows;
  at: number;
  count: number;
}

/** Runs one reserver process; resolves with the ids it was granted. */
export async function reserveInProcess(job: ReserverJob): Promise<number[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [import.meta.filename, JSON.stringify(job)]);
  return JSON.parse(stdout) as number[];
}

if (process.argv[1] === import.meta.filename) {
  const job = JSON.parse(process.argv[2] ?? "{}") as ReserverJob;
  const store = await openStore(job.url, { migrate: false });
  const results = await Promise.all(
    Array.from({ length: job.count }, () =>
      reserveCall(store.db, job.key, job.limits, job.windows, { holdMs: 30_000, at: job.at }),
    ),
  );
  await store.close();
  process.stdout.write(JSON.stringify(results.flatMap((r) => (r.ok ? [r.callId] : []))));
}
