/**
 * Checks of the intel database: reachable, migrated, its job queue healthy, and the connectors
 * that can answer. Nothing is created or migrated here: a missing SQLite file is reported, not made.
 */
import { readIntelConfig } from "../../intel/config.ts";
import { usableConnectors } from "../../intel/services/credentials.ts";
import {
  migrationsNotRun,
  openExistingStore,
  queueStanding,
  type Store,
} from "../../intel/services/diagnosis.ts";
import { enabledConnectors } from "../../intel/services/index.ts";
import { type CheckResult, error, messageOf, ok, warn } from "./result.ts";
import { readDoctorSettings } from "./settings.ts";

/** How long past its lease a running job may wait before no live worker is the likely reason. */
const RECLAIM_GRACE_MS = 60_000;

/** Where INTEL_DATABASE_URL points, without a password. */
function describeUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}

async function queueCheck(store: Store, queueWarnDepth: number): Promise<CheckResult> {
  const { queued, running, abandoned: stuck } = await queueStanding(store, RECLAIM_GRACE_MS);
  const detail = `${queued} queued, ${running} running, ${stuck} past their lease`;
  if (stuck > 0)
    return error(
      "queue",
      detail,
      "no worker is reclaiming jobs: start `./loupe intel worker` (or check its logs)",
    );
  if (queued > queueWarnDepth)
    return warn(
      "queue",
      `${detail} (over LOUPE_DOCTOR_QUEUE_WARN_DEPTH=${queueWarnDepth})`,
      "start more intel workers",
    );
  return ok("queue", detail);
}

async function connectorsCheck(store: Store, setting: string): Promise<CheckResult> {
  const enabled = enabledConnectors(setting);
  const usable = await usableConnectors({ store }, enabled);
  const waiting = enabled.filter((c) => !usable.includes(c)).map((c) => c.id);
  const detail = `${usable.length} of ${enabled.length} enabled connectors usable`;
  if (usable.length === 0)
    return error("connectors", detail, "add vendor credentials in the admin panel or set INTEL_CONNECTORS");
  if (waiting.length > 0)
    return warn(
      "connectors",
      `${detail}; without credentials: ${waiting.join(", ")}`,
      "add their credentials in the admin panel, or leave them out of INTEL_CONNECTORS",
    );
  return ok("connectors", detail);
}

export async function databaseChecks(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  let config: ReturnType<typeof readIntelConfig>;
  let settings: ReturnType<typeof readDoctorSettings>;
  try {
    config = readIntelConfig(env);
    settings = readDoctorSettings(env);
  } catch (err) {
    return [error("database", messageOf(err), "correct the configuration first")];
  }
  let store: Store;
  try {
    store = await openExistingStore(config.databaseUrl, settings.timeoutMs);
  } catch (err) {
    const where = describeUrl(config.databaseUrl);
    return [
      error("database", `${where}: ${messageOf(err)}`, "check INTEL_DATABASE_URL and that the database runs"),
    ];
  }
  try {
    const pending = await migrationsNotRun(store);
    if (pending.length > 0)
      return [
        error(
          "database",
          `${store.dialect} reachable; ${pending.length} migrations not run: ${pending.join(", ")}`,
          "start `./loupe intel serve` once: it migrates at start",
        ),
      ];
    return [
      ok("database", `${store.dialect} reachable and migrated`),
      await queueCheck(store, settings.queueWarnDepth),
      await connectorsCheck(store, config.connectors),
    ];
  } catch (err) {
    return [error("database", messageOf(err), "check the database's logs")];
  } finally {
    await store.close().catch(() => undefined);
  }
}
