/**
 * The request protocol: stored data answers 200 (and stale vendors are refreshed behind it, each
 * vendor by its TTL); otherwise a request is created or joined and 201 answers while it runs; force
 * refreshes every vendor or the ones it names; when every vendor failed, 502 with their errors
 * until a cool-down passes. Workers process requests (`processRequest`). SQL is in
 * store/requests.ts; the rendered answers in rendered-cache.ts; TTLs and merging in freshness.ts.
 */
import type { Transaction } from "kysely";
import type { IntelConfig } from "../config.ts";
import type { Connector, Subject } from "../connectors/types.ts";
import type { JobQueue } from "../queue/jobs.ts";
import { configuredVendors, takeCredentials } from "../store/credentials.ts";
import { isDatabaseUnavailable, type Store } from "../store/db.ts";
import { findEntity, readNeighbourhood, saveFragment, upsertEntity } from "../store/graph.ts";
import {
  ACTIVE_STATUSES,
  activeRequests,
  finishRequest,
  getRequest,
  graphVersion,
  joinOrCreateRequest,
  latestLookup,
  lookupSources,
  markFailed,
  markProcessing,
} from "../store/requests.ts";
import { askRecorder } from "../store/retention.ts";
import type { Database, RequestsTable } from "../store/schema.ts";
import { buildDocument, type SourceOutcome, sourceViews, withSources } from "./document.ts";
import { askVendors, candidates, type VendorAnswer } from "./fanout.ts";
import { allFailed, mergeSources, staleConnectors } from "./freshness.ts";
import { createRenderedCache } from "./rendered-cache.ts";

export type Status = "CREATED" | "ENQUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export type ResultDocument = ReturnType<typeof buildDocument>;

export type SubmitOutcome =
  | { kind: "done"; json: Buffer }
  | { kind: "pending"; request: RequestsTable }
  | { kind: "failed"; request: RequestsTable; errors: Record<string, string> };

export const subjectKey = (s: Subject) => `${s.superType}/${s.type}/${s.value}`;

/** How a client asks: `force` true refreshes every vendor, a list of ids only those (checked by the caller). */
export interface Ask {
  force: boolean | readonly string[];
  depth: number;
}

export interface Requests {
  submit(subject: Subject, ask: Ask): Promise<SubmitOutcome>;
  getRequest(id: string): Promise<RequestsTable | undefined>;
  processRequest(id: string): Promise<void>;
  document(subject: Subject, depth: number): Promise<ResultDocument | undefined>;
}

export interface RequestDeps {
  store: Store;
  queue: JobQueue;
  config: IntelConfig;
  connectors: Connector[];
}

export function createRequests(deps: RequestDeps): Requests {
  const { store, queue } = deps;
  const { db } = store;
  const recordAsk = askRecorder(db);
  const rendered = createRenderedCache();
  const document = (subject: Subject, depth: number) => readDocument(db, subject, depth);

  /** The subject's document without its sources (they carry ages), kept rendered per graph version. */
  async function renderedDocument(subject: Subject, depth: number): Promise<Buffer | undefined> {
    const key = `${depth}|${subjectKey(subject)}`;
    const version = await graphVersion(db);
    const hit = rendered.get(key, version);
    if (hit) return hit;
    const hood = await neighbourhood(db, subject, depth);
    if (!hood) return undefined;
    const json = Buffer.from(JSON.stringify(buildDocument(hood, {})));
    rendered.set(key, version, json);
    return json;
  }

  const enqueue = (id: string, tx: Transaction<Database>) => queue.enqueue(id, tx);
  const planOf = (asked: Connector[], how: { force: boolean; background: boolean }) => ({
    ...how,
    asked: asked.map((c) => c.id).sort(),
    tlp: null,
    pap: null,
    vendors: "{}",
  });

  /** The subject's request asking `asked` (joined or new), enqueued with its job in one transaction. */
  function createOrJoin(subject: Subject, asked: Connector[], how: { force: boolean; background: boolean }) {
    return joinOrCreateRequest(store, { ...subject, key: subjectKey(subject) }, planOf(asked, how), enqueue);
  }

  /** Refreshes `stale` behind the answer of request `latest`, unless another request replaced it meanwhile. */
  async function refreshBehind(subject: Subject, stale: Connector[], latest: string): Promise<void> {
    const plan = { ...planOf(stale, BACKGROUND), whileLatest: latest };
    await joinOrCreateRequest(store, { ...subject, key: subjectKey(subject) }, plan, enqueue);
  }

  async function submit(subject: Subject, ask: Ask): Promise<SubmitOutcome> {
    const key = subjectKey(subject);
    await recordAsk(key);
    const allowed = candidates(deps.connectors, subject, await configuredVendors(db));
    if (ask.force !== false) {
      const names = ask.force;
      const forced = names === true ? allowed : allowed.filter((c) => names.includes(c.id));
      return { kind: "pending", request: await createOrJoin(subject, forced, FOREGROUND_FORCED) };
    }
    const stored = await storedOutcome(subject, allowed, ask.depth);
    if (stored) return stored;
    return { kind: "pending", request: await createOrJoin(subject, allowed, FOREGROUND) };
  }

  /**
   * What is stored for a non-forced call: a request someone waits for (asking only vendors this
   * call may ask), a finished answer (stale vendors refreshed behind it), or a recent failure.
   */
  async function storedOutcome(
    subject: Subject,
    allowed: Connector[],
    depth: number,
  ): Promise<SubmitOutcome | undefined> {
    const key = subjectKey(subject);
    const waitFor = (await activeRequests(db, key)).find((r) => r.background === 0 && asksOnly(r, allowed));
    if (waitFor) return { kind: "pending", request: waitFor };
    const lookup = await latestLookup(db, key);
    if (lookup?.status === "SUCCEEDED") {
      const body = await renderedDocument(subject, depth);
      if (body) {
        const sources = JSON.parse(await lookupSources(db, key)) as Record<string, SourceOutcome>;
        const now = Date.now();
        const stale = staleConnectors(allowed, sources, now, deps.config);
        if (stale.length > 0) await refreshBehind(subject, stale, lookup.request_id);
        return { kind: "done", json: withSources(body, sourceViews(sources, now)) };
      }
    }
    const coolingDown = Date.now() - Date.parse(lookup?.finished_at ?? "") < deps.config.failureCooldownMs;
    if (lookup?.status === "FAILED" && coolingDown) {
      const request = await getRequest(db, lookup.request_id);
      if (request) return { kind: "failed", request, errors: vendorErrors(request) };
    }
    return undefined;
  }

  /**
   * Runs a request; an unexpected failure ends it FAILED with the reason (never a silent retry
   * loop). The database going away for a moment is not the request's fault: the job is retried
   * (the queue's backoff) and the request stays PROCESSING.
   */
  async function processRequest(id: string): Promise<void> {
    try {
      await runRequest(deps, id);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      await markFailed(db, id, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  return { submit, processRequest, document, getRequest: (id) => getRequest(db, id) };
}

const FOREGROUND = { force: false, background: false };
const FOREGROUND_FORCED = { force: true, background: false };
const BACKGROUND = { force: false, background: true };

/** The vendor ids a request asks (null on rows made before requests recorded it: every usable vendor). */
export const askedIds = (r: RequestsTable): string[] | null =>
  r.asked == null ? null : (JSON.parse(r.asked) as string[]);

/** Whether waiting for request `r` sends the subject to no vendor beyond `allowed`. */
function asksOnly(r: RequestsTable, allowed: Connector[]): boolean {
  const ids = askedIds(r);
  return ids === null || ids.every((id) => allowed.some((c) => c.id === id));
}

/** The root and its neighbours: the subject's looked-up root entity, or an entity of that name. */
async function neighbourhood(db: Store["db"], subject: Subject, depth: number) {
  const lookup = await latestLookup(db, subjectKey(subject));
  const root = lookup?.root_entity
    ? { id: lookup.root_entity }
    : await findEntity(db, { superType: subject.superType, type: subject.type, name: subject.value });
  return root ? readNeighbourhood(db, root.id, depth) : undefined;
}

/** The result document of a subject looked up before (or known as an entity), or undefined. */
async function readDocument(
  db: Store["db"],
  subject: Subject,
  depth: number,
): Promise<ResultDocument | undefined> {
  const hood = await neighbourhood(db, subject, depth);
  if (!hood) return undefined;
  const sources = JSON.parse(await lookupSources(db, subjectKey(subject))) as Record<string, SourceOutcome>;
  return buildDocument(hood, sourceViews(sources, Date.now()));
}

/**
 * Asks the request's vendors, saves what each said, and finishes the request, merging its outcomes
 * with the subject's earlier ones (at-least-once: a finished one is skipped).
 */
async function runRequest({ store, config, connectors }: RequestDeps, id: string): Promise<void> {
  const { db } = store;
  const request = await getRequest(db, id);
  if (!request || !ACTIVE_STATUSES.includes(request.status)) return;
  await markProcessing(db, id);
  const subject: Subject = { superType: request.super_type, type: request.type, value: request.value };
  const root = { superType: subject.superType, type: subject.type, name: subject.value };
  const rootId = await upsertEntity(db, root, null);
  const ids = askedIds(request);
  const asked =
    ids === null
      ? candidates(connectors, subject, await configuredVendors(db))
      : connectors.filter((c) => ids.includes(c.id));
  const answers = await askVendors(subject, asked, {
    config,
    takeCredentials: (v) => takeCredentials(db, v),
  });
  const outcomes = JSON.parse(request.vendors) as Record<string, SourceOutcome>;
  for (const a of answers) outcomes[a.connector.id] = await saveAnswer(db, root, a);
  await finishRequest(store, {
    id,
    subjectKey: request.subject_key,
    rootId,
    vendors: JSON.stringify(outcomes),
    settle(previous) {
      const merged = mergeSources(JSON.parse(previous) as Record<string, SourceOutcome>, outcomes);
      return { sources: JSON.stringify(merged), status: allFailed(merged) ? "FAILED" : "SUCCEEDED" };
    },
  });
}

/** Stores one vendor's fragment; a storage error becomes that vendor's outcome (the database going away does not). */
async function saveAnswer(
  db: Store["db"],
  root: { superType: string; type: string; name: string },
  answer: VendorAnswer,
): Promise<SourceOutcome> {
  if (!answer.fragment) return answer.outcome;
  try {
    await saveFragment(db, root, answer.fragment, answer.connector.id);
    return answer.outcome;
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    return { status: "error", error: `storage: ${String(err)}`, fetched_at: answer.outcome.fetched_at };
  }
}

export function vendorErrors(request: RequestsTable): Record<string, string> {
  const vendors = JSON.parse(request.vendors) as Record<string, SourceOutcome>;
  return Object.fromEntries(Object.entries(vendors).flatMap(([k, v]) => (v.error ? [[k, v.error]] : [])));
}
