/**
 * Bulk asks: many subjects in one call, each through the same path as a single ask (joins an
 * active request, answered from storage when stored) but in the queue's bulk lane, so a batch never
 * starves single asks. A batch's progress is its requests' statuses.
 */
import { setImmediate } from "node:timers/promises";
import pLimit from "p-limit";
import type { Chunks } from "../../common/chunks.ts";
import { badRequest, type ErrorBody } from "../../common/errors.ts";
import type { Requests } from "../domain/requests.ts";
import { type SubmitOutcome, subjectKey, vendorErrors } from "../domain/requests.ts";
import type { Subject } from "../model/graph.ts";
import type { Marking } from "../model/markings.ts";
import {
  type BatchItemRow,
  batchCounts,
  batchesWaitingFor,
  batchItems,
  finishBatchIfDone,
  getBatch,
  insertBatch,
  insertBatchItems,
} from "../store/batches.ts";
import type { Store } from "../store/db.ts";
import { latestLookup } from "../store/requests.ts";
import type { BatchItemsTable } from "../store/schema.ts";
import { newId, nowIso } from "../store/time.ts";
import { batchFinished } from "./webhooks.ts";

type Services = { store: Store; requests: Requests };

/** One subject of a bulk ask, as the door checked it: a subject (with its own marks, if any), or why it was refused. */
export type BulkEntry =
  | { index: number; subject: Subject; tlp?: Marking; pap?: Marking }
  | { index: number; error: ErrorBody };

export interface Rejection {
  index: number;
  detail: string;
  code: string;
}

export interface BatchCreated {
  id: string;
  total: number;
  /** One per accepted subject, in the asked order. */
  requests: Array<{ index: number; id: string; status: string }>;
  rejected: Rejection[];
  /** Every accepted subject was answered from storage (or a recent failure). */
  finished: boolean;
}

/** Subjects of one bulk ask submitted at once (each takes a few statements and commits). */
const SUBMIT_CONCURRENCY = 4;

const rejectionOf = (e: { index: number; error: ErrorBody }): Rejection => ({
  index: e.index,
  detail: e.error.detail,
  code: e.error.code,
});

/**
 * Records the batch, then submits each valid subject in order. 400 `no_valid_subject` (with every
 * rejection) when none is valid: nothing is created then. A subject's own `tlp`/`pap` win over
 * the batch's (and the requests service raises either to the subject's stored marks).
 */
export async function submitBatch(
  services: Services,
  entries: BulkEntry[],
  opts: { force: boolean; depth: number; tokenHash: string; tlp?: Marking; pap?: Marking },
): Promise<BatchCreated> {
  const rejected = entries.flatMap((e) => ("error" in e ? [rejectionOf(e)] : []));
  const valid = entries.flatMap((e) => ("subject" in e ? [e] : []));
  if (valid.length === 0)
    throw badRequest("no_valid_subject", "No subject of this bulk ask is valid; see `rejected`.", {
      rejected,
    });
  const { db } = services.store;
  const id = newId();
  // The batch exists before its requests can finish: the worker finishing one finds it.
  await insertBatch(db, {
    id,
    token_hash: opts.tokenHash,
    depth: opts.depth,
    total: entries.length,
    rejected: JSON.stringify(rejected),
    created_at: nowIso(),
    finished_at: null,
  });
  // A few at once: each submit commits on its own, and PostgreSQL commits concurrent ones together.
  const limit = pLimit(SUBMIT_CONCURRENCY);
  const requests: BatchCreated["requests"] = await Promise.all(
    valid.map(({ index, subject, tlp, pap }) =>
      limit(async () => {
        // Lets I/O in: on SQLite every statement resolves at once, and a run of submits would
        // otherwise hold this process's event loop (its worker's vendor calls time out).
        await setImmediate();
        const outcome = await services.requests.submit(subject, {
          force: opts.force,
          depth: opts.depth,
          tlp: tlp ?? opts.tlp,
          pap: pap ?? opts.pap,
          lane: "bulk",
        });
        return { index, ...(await answeringRequest(services, subject, outcome)) };
      }),
    ),
  );
  const items: BatchItemsTable[] = valid.map(({ subject }, i) => ({
    batch_id: id,
    idx: requests[i]?.index ?? 0,
    request_id: requests[i]?.id ?? "",
    super_type: subject.superType,
    type: subject.type,
    value: subject.value,
  }));
  await insertBatchItems(db, items);
  // Requests that finished before their items were written are seen here.
  const finished = await finishBatchIfDone(db, id);
  if (finished) await batchFinished(services, id);
  return { id, total: entries.length, requests, rejected, finished };
}

/** The request that answers a subject: the new or joined one, or the stored lookup's. */
async function answeringRequest(
  services: Services,
  subject: Subject,
  outcome: SubmitOutcome,
): Promise<{ id: string; status: string }> {
  if (outcome.kind !== "done") return { id: outcome.request.id, status: outcome.request.status };
  const lookup = await latestLookup(services.store.db, subjectKey(subject));
  if (!lookup) throw new Error(`a stored answer without a lookup for ${subjectKey(subject)}`);
  return { id: lookup.request_id, status: lookup.status };
}

export interface BatchPage {
  offset: number;
  limit: number;
  /** Add each finished item's result document (or its vendors' errors). */
  results: boolean;
}

/** A batch's progress (counts per status), its rejected subjects and a page of its items; undefined when unknown. */
export async function batchProgress(services: Services, id: string, page: BatchPage) {
  const { db } = services.store;
  const batch = await getBatch(db, id);
  if (!batch) return undefined;
  const counts = await batchCounts(db, id);
  const rows = await batchItems(db, id, page.offset, page.limit);
  const items = [];
  for (const row of rows) items.push(await itemJson(services, row, page.results ? batch.depth : 0));
  const accepted = Object.values(counts).reduce((a, b) => a + b, 0);
  const nextOffset = page.offset + rows.length;
  return {
    id: batch.id,
    created_at: batch.created_at,
    finished_at: batch.finished_at,
    total: batch.total,
    accepted,
    counts,
    rejected: JSON.parse(batch.rejected) as Rejection[],
    items,
    next_offset: nextOffset < accepted ? nextOffset : null,
  };
}

export type BatchProgress = NonNullable<Awaited<ReturnType<typeof batchProgress>>>;

const utf8 = (text: string) => Buffer.from(text, "utf8");

/**
 * The progress as JSON bytes, each item's result document (rendered JSON bytes, up to
 * INTEL_RESULT_MAX_ENTITIES entities each) put in as its slices: never parsed, serialised nor
 * even copied here (joining a 25 MB page cost the event loop 100 ms and more).
 */
export function progressBytes(progress: BatchProgress): Chunks {
  const { items, next_offset, ...head } = progress;
  const parts: Buffer[] = [utf8(`${JSON.stringify(head).slice(0, -1)},"items":[`)];
  items.forEach((item, i) => {
    const { result, ...base } = item as typeof item & { result?: Chunks };
    if (i > 0) parts.push(utf8(","));
    if (result === undefined) parts.push(utf8(JSON.stringify(base)));
    else parts.push(utf8(`${JSON.stringify(base).slice(0, -1)},"result":`), ...result, utf8("}"));
  });
  parts.push(utf8(`],"next_offset":${JSON.stringify(next_offset)}}`));
  return parts;
}

/** One item; with `depth` > 0 a finished one carries its result document (SUCCEEDED) or its errors (FAILED). */
async function itemJson(services: Services, row: BatchItemRow, depth: number) {
  const base = {
    index: row.idx,
    id: row.request_id,
    super_type: row.super_type,
    type: row.type,
    value: row.value,
    status: row.status ?? "UNKNOWN",
  };
  if (depth === 0) return base;
  const subject = { superType: row.super_type, type: row.type, value: row.value };
  if (row.status === "SUCCEEDED")
    return { ...base, result: await services.requests.document(subject, depth) };
  if (row.status === "FAILED") {
    const request = await services.requests.getRequest(row.request_id);
    return { ...base, errors: request ? vendorErrors(request) : {} };
  }
  return base;
}

/** Batches finished by this request's end (each reported once, to the one caller that finished it). */
export async function batchesFinishedBy(services: { store: Store }, requestId: string): Promise<string[]> {
  const finished: string[] = [];
  for (const id of await batchesWaitingFor(services.store.db, requestId)) {
    if (await finishBatchIfDone(services.store.db, id)) finished.push(id);
  }
  return finished;
}
