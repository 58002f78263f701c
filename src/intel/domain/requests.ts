/**
 * The request protocol: stored data answers 200 (and stale vendors are refreshed behind it, each
 * vendor by its TTL); otherwise a request is created or joined and 201 answers while it runs; force
 * refreshes every vendor or the ones it names; when every vendor failed, 502 with their errors
 * until a cool-down passes. Every vendor set is gated by the subject's sticky TLP/PAP (`plan`,
 * and again in the worker). Workers process requests (`processRequest`). SQL is in
 * store/requests.ts; the rendered answers in rendered-cache.ts; TTLs and merging in freshness.ts.
 */

import type { Transaction } from "kysely";
import type { Chunks } from "../../common/chunks.ts";
import type { IntelConfig } from "../config.ts";
import type { Connector } from "../connectors/types.ts";
import type { Subject } from "../model/graph.ts";
import { fromStored, type Marking, rank, storedName, weakerThan } from "../model/markings.ts";
import { type JobQueue, type Lane, priorityOf } from "../queue/jobs.ts";
import { configuredVendors } from "../store/credentials.ts";
import { isDatabaseUnavailable, type Store } from "../store/db.ts";
import { entityMarks, raiseMarking, saveFragment, upsertEntity } from "../store/graph.ts";
import { saveRawAnswers } from "../store/raw-answers.ts";
import { DIRECT_READS, type ReadCache, type ReadView } from "../store/read-cache.ts";
import {
  bumpGraphVersion,
  finishRequest,
  getRequest,
  type Joined,
  joinOrCreateRequest,
  lookupSources,
  markFailed,
  markProcessing,
} from "../store/requests.ts";
import { askRecorder } from "../store/retention.ts";
import type { Database, LookupsTable, RequestsTable } from "../store/schema.ts";
import { canonicalThreat } from "../store/threat-names.ts";
import { type AnswerReads, answerReads } from "./answer-reads.ts";
import type { buildDocument } from "./document.ts";
import { askVendors, candidates, type VendorAnswer } from "./fanout.ts";
import { feedReader } from "./feeds.ts";
import { allFailed, mergeSources, staleConnectors } from "./freshness.ts";
import { gate, type Marks } from "./markings.ts";
import { nobodyAsked, type Reach, reachOf } from "./nobody-asked.ts";
import { type Clock, takeSlot } from "./quota.ts";
import { type DocumentRenderer, subjectKey } from "./result-reads.ts";
import { type SourceOutcome, sourceViews, withSources } from "./sources.ts";
import { unifyThreatNames } from "./threat-names.ts";

export type Status = "CREATED" | "ENQUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export type ResultDocument = ReturnType<typeof buildDocument>;

export type SubmitOutcome =
  | { kind: "done"; json: Chunks }
  /** `asking`: the vendors the request asks (read from the plan for a request made before it kept them). */
  | { kind: "pending"; request: RequestsTable; asking: string[] }
  | { kind: "failed"; request: RequestsTable; errors: Record<string, string> };

export { subjectKey };

/**
 * How a client asks: `force` true refreshes every vendor, a list of ids only those (checked by the
 * caller); `tlp`/`pap` (default: the settings'), raised to the subject's stored marks, decide
 * which vendors may receive the subject.
 */
export interface Ask {
  force: boolean | readonly string[];
  depth: number;
  tlp?: Marking;
  pap?: Marking;
  /** "bulk" for a batch's subjects: their lookups wait behind every interactive one. */
  lane?: Lane;
  /** A view of the read cache taken after the caller's request arrived (the key check's), to share. */
  view?: ReadView;
  /** The vendors that look this subject up and are configured, when the caller read them already (once per ask). */
  reach?: Pick<Reach, "supporting" | "usable">;
}

export interface Requests {
  submit(subject: Subject, ask: Ask): Promise<SubmitOutcome>;
  getRequest(id: string): Promise<RequestsTable | undefined>;
  processRequest(id: string): Promise<void>;
  /** The subject's stored result document as JSON bytes, rendered off the event loop (undefined: nothing stored). */
  document(subject: Subject, depth: number): Promise<Chunks | undefined>;
}

export interface RequestDeps {
  store: Store;
  queue: JobQueue;
  config: IntelConfig;
  connectors: Connector[];
  /** What a non-forced ask reads comes through it (absent: straight from the database). */
  reads?: ReadCache;
  /** Renders stored answers off the event loop and keeps them per graph version. */
  renderer: DocumentRenderer;
  /** The vendor quotas' clock (Date.now unless a test moves its own). */
  now?: Clock;
}

/** What the protocol's steps share in one process: its dependencies. */
interface Context extends RequestDeps {
  reads: ReadCache;
}

export function createRequests(deps: RequestDeps): Requests {
  const { db } = deps.store;
  const recordAsk = askRecorder(db);
  const ctx: Context = {
    ...deps,
    reads: deps.reads ?? { view: async () => DIRECT_READS, counts: () => ({ hits: 0, misses: 0 }) },
  };

  async function submit(subject: Subject, ask: Ask): Promise<SubmitOutcome> {
    const wrote = await recordAsk(subjectKey(subject));
    const outcome = await submitAsk(ctx, subject, wrote ? { ...ask, view: undefined } : ask);
    // A client asking for a subject a batch queued must not wait behind that batch.
    if (outcome.kind === "pending" && (ask.lane ?? "interactive") === "interactive")
      await ctx.queue.promote(outcome.request.id);
    return outcome;
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

  return {
    submit,
    processRequest,
    document: (subject, depth) => documentWithReasons(ctx, subject, depth),
    getRequest: (id) => getRequest(db, id),
  };
}

/** How a request is made: for a caller who forced it, for a caller who waits, or behind a stored answer. */
const FOREGROUND = { force: false, background: false };
const FOREGROUND_FORCED = { force: true, background: false };
const BACKGROUND = { force: false, background: true };

interface Planned extends Reach {
  /** The marks that gate this ask (the stricter of its own and the subject's stored ones). */
  marks: Marks;
  /** The vendors this ask may reach, and the outcomes of those its marks keep the subject from. */
  allowed: Connector[];
  skipped: Record<string, SourceOutcome>;
}

/** A stored entity's marks as levels (undefined: the subject has no entity yet). */
const storedMarks = (row: { tlp: string; pap: string } | undefined): Marks | undefined =>
  row && { tlp: fromStored(row.tlp), pap: fromStored(row.pap) };

/**
 * The vendors an ask may reach: those supporting the subject's type and configured, gated by the
 * stricter of the ask's marks and the subject's stored ones (read under the subject's normal form).
 */
async function plan(
  ctx: Context,
  reads: AnswerReads,
  subject: Subject,
  asked: Marks,
  known?: Pick<Reach, "supporting" | "usable">,
): Promise<Planned> {
  const reach = known ?? reachOf(ctx.connectors, subject, await reads.configuredVendors());
  const stored = storedMarks(await reads.entityMarks(rootRef(subject)));
  return { ...reach, ...gate(reach.usable, asked, stored, ctx.config) };
}

const rootRef = (subject: Subject) => ({
  superType: subject.superType,
  type: subject.type,
  name: subject.value,
});

async function submitAsk(ctx: Context, subject: Subject, ask: Ask): Promise<SubmitOutcome> {
  const { config } = ctx;
  const asked = { tlp: ask.tlp ?? config.defaultTlp, pap: ask.pap ?? config.defaultPap };
  const marked = await markRoot(ctx.store.db, subject, asked);
  // A view taken after this ask's own writes, so that what it reads includes them.
  const view = !marked && ask.view ? ask.view : await ctx.reads.view();
  const reads = answerReads(ctx.store.db, view);
  const planned = await plan(ctx, reads, subject, asked, ask.reach);
  if (ask.force !== false) {
    const names = ask.force;
    const picked = (id: string) => names === true || names.includes(id);
    const forced = planned.allowed.filter((c) => picked(c.id));
    const skipped = Object.fromEntries(Object.entries(planned.skipped).filter(([id]) => picked(id)));
    return startRequest(ctx, subject, { ...planned, allowed: forced, skipped }, FOREGROUND_FORCED, ask.lane);
  }
  const stored = await storedOutcome(ctx, reads, subject, planned, ask.depth);
  return stored ?? startRequest(ctx, subject, planned, FOREGROUND, ask.lane);
}

/**
 * A request asking `planned.allowed` (joined or new, enqueued with its job in one transaction).
 * One that may ask nobody (every vendor skipped) still goes through the queue: the protocol stays
 * 201 then 200 whatever the marks.
 */
async function startRequest(
  ctx: Context,
  subject: Subject,
  planned: Planned,
  how: { force: boolean; background: boolean },
  lane: Lane = "interactive",
): Promise<SubmitOutcome> {
  const joined = await joinOrCreate(ctx, (tx) =>
    joinOrCreateRequest(ctx.store, tx, keyed(subject), planOf(planned, how), priorityOf(lane)),
  );
  return pending(joined.request, planned);
}

/**
 * Runs `join` in a transaction of its own; a job it made wakes this process's worker before the
 * commit, as `JobQueue.enqueue` does (the claim that follows sees the job once it is committed).
 */
function joinOrCreate<T extends Joined | undefined>(
  ctx: Context,
  join: (tx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return ctx.store.db.transaction().execute(async (tx) => {
    const joined = await join(tx);
    if (joined?.created) ctx.queue.wake();
    return joined;
  });
}

const pending = (request: RequestsTable, planned: Planned): SubmitOutcome => ({
  kind: "pending",
  request,
  asking: askedIds(request) ?? planned.usable.map((c) => c.id),
});

const keyed = (subject: Subject) => ({ ...subject, key: subjectKey(subject) });

const planOf = (planned: Planned, how: { force: boolean; background: boolean }) => ({
  ...how,
  asked: planned.allowed.map((c) => c.id).sort(),
  tlp: planned.marks.tlp,
  pap: planned.marks.pap,
  vendors: JSON.stringify(planned.skipped),
});

/**
 * What is stored for a non-forced call: a request someone waits for (asking only vendors this
 * call may ask), a finished answer (stale vendors refreshed behind it), or a recent failure.
 */
async function storedOutcome(
  ctx: Context,
  reads: AnswerReads,
  subject: Subject,
  planned: Planned,
  depth: number,
): Promise<SubmitOutcome | undefined> {
  const { db } = ctx.store;
  const key = subjectKey(subject);
  const waitFor = (await reads.activeRequests(key)).find(
    (r) => r.background === 0 && asksOnly(r, planned.allowed),
  );
  if (waitFor) return pending(waitFor, planned);
  const lookup = await reads.latestLookup(key);
  const answer = await answerFromStorage(ctx, reads, subject, planned, depth, lookup);
  if (answer) return answer;
  const coolingDown = Date.now() - Date.parse(lookup?.finished_at ?? "") < ctx.config.failureCooldownMs;
  if (lookup?.status === "FAILED" && coolingDown) {
    const request = await getRequest(db, lookup.request_id);
    if (request) return { kind: "failed", request, errors: vendorErrors(request) };
  }
  return undefined;
}

/**
 * The stored answer of a subject whose latest request (`lookup`) succeeded, with each vendor's age; the
 * vendors among `planned.allowed` whose part is stale are asked again by a background request.
 */
async function answerFromStorage(
  ctx: Context,
  reads: AnswerReads,
  subject: Subject,
  planned: Planned,
  depth: number,
  lookup: LookupsTable | undefined,
): Promise<SubmitOutcome | undefined> {
  const key = subjectKey(subject);
  if (lookup?.status !== "SUCCEEDED") return undefined;
  // Without its sources (they carry ages): rendered once per graph version, off the event loop.
  const body = await ctx.renderer.document(subject, depth, await reads.graphVersion());
  if (!body) return undefined;
  const sources = await reads.sources(key, lookup);
  const now = Date.now();
  const stale = staleConnectors(planned.allowed, sources, now, ctx.config);
  if (stale.length > 0) {
    // Only while this answer is still the latest: one replaced meanwhile needs no refresh.
    const plan = {
      ...planOf({ ...planned, allowed: stale, skipped: {} }, BACKGROUND),
      whileLatest: lookup.request_id,
    };
    await joinOrCreate(ctx, (tx) =>
      joinOrCreateRequest(ctx.store, tx, keyed(subject), plan, priorityOf("interactive")),
    );
  }
  return { kind: "done", json: withSources(body, sourceViews(sources, now), nobodyAsked(sources, planned)) };
}

/**
 * The subject's entity keeps the most restricted TLP and PAP it was asked with (a conditional
 * update: concurrent askers never lower it); rendered answers are renewed when it changed.
 */
async function markRoot(db: Store["db"], subject: Subject, marks: Marks): Promise<boolean> {
  if (rank(marks.tlp) === 0 && rank(marks.pap) === 0) return false;
  const id = await upsertEntity(
    db,
    { superType: subject.superType, type: subject.type, name: subject.value },
    null,
  );
  const tlp = await raiseMarking(db, id, "tlp", storedName(marks.tlp), weakerThan(marks.tlp));
  const pap = await raiseMarking(db, id, "pap", storedName(marks.pap), weakerThan(marks.pap));
  if (tlp || pap) await bumpGraphVersion(db);
  return true;
}

/** The vendor ids a request asks (null on rows made before requests recorded it: every usable vendor). */
export const askedIds = (r: RequestsTable): string[] | null =>
  r.asked == null ? null : (JSON.parse(r.asked) as string[]);

/** Whether waiting for request `r` sends the subject to no vendor beyond `allowed`. */
function asksOnly(r: RequestsTable, allowed: Connector[]): boolean {
  const ids = askedIds(r);
  return ids === null || ids.every((id) => allowed.some((c) => c.id === id));
}

/**
 * The result document of a subject looked up before (or known as an entity) as JSON bytes, or
 * undefined, with why nobody was asked when no vendor spoke (at most INTEL_RESULT_MAX_ENTITIES
 * entities). The graph is read and rendered in a render process, kept per graph version like a
 * cached answer's: a 30,000-entity document never holds the event loop (the panel's raw view,
 * a batch's results).
 */
async function documentWithReasons(
  ctx: Context,
  subject: Subject,
  depth: number,
): Promise<Chunks | undefined> {
  const { db } = ctx.store;
  const reads = answerReads(db, DIRECT_READS);
  const body = await ctx.renderer.document(subject, depth, await reads.graphVersion());
  if (!body) return undefined;
  const sources = JSON.parse(await lookupSources(db, subjectKey(subject))) as Record<string, SourceOutcome>;
  // Why nobody was asked is read only when no vendor spoke (the plan costs two reads).
  const spoke = Object.values(sources).some((o) => o.status !== "skipped");
  const asked = { tlp: ctx.config.defaultTlp, pap: ctx.config.defaultPap };
  const nobody = spoke ? null : nobodyAsked(sources, await plan(ctx, reads, subject, asked));
  return withSources(body, sourceViews(sources, Date.now()), nobody);
}

/**
 * Asks the request's vendors, saves what each said, and finishes the request, merging its outcomes
 * with the subject's earlier ones (at-least-once: a finished one is skipped).
 */
async function runRequest({ store, config, connectors, now }: RequestDeps, id: string): Promise<void> {
  const { db } = store;
  const request = await markProcessing(db, id); // only one still to be answered (at-least-once)
  if (!request) return;
  const subject: Subject = { superType: request.super_type, type: request.type, value: request.value };
  const root = { superType: subject.superType, type: subject.type, name: subject.value };
  const rootId = await upsertEntity(db, root, null);
  const ids = askedIds(request);
  const planned =
    ids === null
      ? candidates(connectors, subject, await configuredVendors(db))
      : connectors.filter((c) => ids.includes(c.id));
  // Gated again here, the last step before the vendors: the subject may have been marked more
  // strictly since this request was planned (a RED ask while a CLEAR one waited in the queue).
  const recorded = { tlp: fromStored(request.tlp ?? "CLEAR"), pap: fromStored(request.pap ?? "CLEAR") };
  const stored = storedMarks(await entityMarks(db, root));
  const { allowed, skipped } = gate(planned, recorded, stored, config);
  const answers = await askVendors(subject, allowed, {
    config,
    takeSlot: (connector, holdMs) => takeSlot(db, connector, config, holdMs, now),
    feeds: feedReader(db),
  });
  const outcomes = { ...(JSON.parse(request.vendors) as Record<string, SourceOutcome>), ...skipped };
  for (const a of answers) outcomes[a.connector.id] = await saveAnswer(db, root, a);
  await saveRawAnswers(db, id, answers);
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
    const fragment = await unifyThreatNames(answer.fragment, root, (f, ref) => canonicalThreat(db, f, ref));
    await saveFragment(db, root, fragment, answer.connector.id);
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
