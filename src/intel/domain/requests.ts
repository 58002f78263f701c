/**
 * The request protocol: stored data answers 200; otherwise a request is created or joined and 201
 * answers while it runs; force refreshes every vendor; when every vendor failed, 502 with their
 * errors until a cool-down passes. Workers process requests (`processRequest`). SQL is in
 * store/requests.ts; the rendered answers in rendered-cache.ts.
 */
import type { Transaction } from "kysely";
import type { IntelConfig } from "../config.ts";
import type { Connector, Subject } from "../connectors/types.ts";
import type { JobQueue } from "../queue/jobs.ts";
import { configuredVendors, takeCredentials } from "../store/credentials.ts";
import { isDatabaseUnavailable, type Store } from "../store/db.ts";
import { findEntity, readNeighbourhood, saveFragment, upsertEntity } from "../store/graph.ts";
import { saveRawAnswers } from "../store/raw-answers.ts";
import {
  ACTIVE_STATUSES,
  activeRequest,
  finishRequest,
  getRequest,
  graphVersion,
  joinOrCreateRequest,
  latestLookup,
  markFailed,
  markProcessing,
} from "../store/requests.ts";
import { askRecorder } from "../store/retention.ts";
import type { Database, RequestsTable } from "../store/schema.ts";
import { canonicalThreat } from "../store/threat-names.ts";
import { buildDocument, type SourceOutcome } from "./document.ts";
import { askVendors, candidates, type VendorAnswer } from "./fanout.ts";
import { createRenderedCache } from "./rendered-cache.ts";
import { unifyThreatNames } from "./threat-names.ts";

export type Status = "CREATED" | "ENQUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export type ResultDocument = ReturnType<typeof buildDocument>;

export type SubmitOutcome =
  | { kind: "done"; json: Buffer }
  | { kind: "pending"; request: RequestsTable }
  | { kind: "failed"; request: RequestsTable; errors: Record<string, string> };

export const subjectKey = (s: Subject) => `${s.superType}/${s.type}/${s.value}`;

export interface Requests {
  submit(subject: Subject, force: boolean, depth: number): Promise<SubmitOutcome>;
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

  async function renderedDocument(subject: Subject, depth: number): Promise<Buffer | undefined> {
    const key = `${depth}|${subjectKey(subject)}`;
    const version = await graphVersion(db);
    const hit = rendered.get(key, version);
    if (hit) return hit;
    const doc = await document(subject, depth);
    if (!doc) return undefined;
    const json = Buffer.from(JSON.stringify(doc));
    rendered.set(key, version, json);
    return json;
  }

  async function submit(subject: Subject, force: boolean, depth: number): Promise<SubmitOutcome> {
    const key = subjectKey(subject);
    await recordAsk(key);
    if (!force) {
      const stored = await storedOutcome(subject, key, depth);
      if (stored) return stored;
    }
    const enqueue = (id: string, tx: Transaction<Database>) => queue.enqueue(id, tx);
    return {
      kind: "pending",
      request: await joinOrCreateRequest(store, { ...subject, key }, force, enqueue),
    };
  }

  /** What is stored for a non-forced call: a request under way, a finished answer, or a recent failure. */
  async function storedOutcome(
    subject: Subject,
    key: string,
    depth: number,
  ): Promise<SubmitOutcome | undefined> {
    const active = await activeRequest(db, key);
    if (active) return { kind: "pending", request: active };
    const lookup = await latestLookup(db, key);
    if (lookup?.status === "SUCCEEDED") {
      const json = await renderedDocument(subject, depth);
      if (json) return { kind: "done", json };
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

/** The result document of a subject looked up before (or known as an entity), or undefined. */
async function readDocument(
  db: Store["db"],
  subject: Subject,
  depth: number,
): Promise<ResultDocument | undefined> {
  const lookup = await latestLookup(db, subjectKey(subject));
  const root = lookup?.root_entity
    ? { id: lookup.root_entity }
    : await findEntity(db, { superType: subject.superType, type: subject.type, name: subject.value });
  if (!root) return undefined;
  const hood = await readNeighbourhood(db, root.id, depth);
  if (!hood) return undefined;
  const request = lookup ? await getRequest(db, lookup.request_id) : undefined;
  return buildDocument(hood, request ? (JSON.parse(request.vendors) as Record<string, SourceOutcome>) : {});
}

/** Asks every usable vendor, saves what each said, and finishes the request (at-least-once: a finished one is skipped). */
async function runRequest({ store, config, connectors }: RequestDeps, id: string): Promise<void> {
  const { db } = store;
  const request = await getRequest(db, id);
  if (!request || !ACTIVE_STATUSES.includes(request.status)) return;
  await markProcessing(db, id);
  const subject: Subject = { superType: request.super_type, type: request.type, value: request.value };
  const root = { superType: subject.superType, type: subject.type, name: subject.value };
  const rootId = await upsertEntity(db, root, null);
  const asked = candidates(connectors, subject, await configuredVendors(db));
  const answers = await askVendors(subject, asked, {
    config,
    takeCredentials: (v) => takeCredentials(db, v),
  });
  const outcomes: Record<string, SourceOutcome> = {};
  for (const a of answers) outcomes[a.connector.id] = await saveAnswer(db, root, a);
  await saveRawAnswers(db, id, answers);
  const allFailed = answers.length > 0 && answers.every((a) => outcomes[a.connector.id]?.status === "error");
  await finishRequest(db, {
    id,
    subjectKey: request.subject_key,
    rootId,
    status: allFailed ? "FAILED" : "SUCCEEDED",
    vendors: JSON.stringify(outcomes),
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
