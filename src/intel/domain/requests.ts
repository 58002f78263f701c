/**
 * The request protocol (DESIGN §3): stored data answers 200; otherwise a lookup is created or
 * joined and 201 answers while it runs; force refreshes every vendor; when every vendor failed,
 * 502 with their errors until a cool-down passes. Workers process lookups (`processRequest`).
 */
import { sql } from "kysely";
import type { IntelConfig } from "../config.ts";
import type { Connector, Subject } from "../connectors/types.ts";
import type { JobQueue } from "../queue/jobs.ts";
import { configuredVendors, takeCredentials } from "../store/credentials.ts";
import { isDatabaseUnavailable, type Store } from "../store/db.ts";
import { findEntity, readNeighbourhood, saveFragment, upsertEntity } from "../store/graph.ts";
import { askRecorder } from "../store/retention.ts";
import type { RequestsTable } from "../store/schema.ts";
import { newId, nowIso } from "../store/time.ts";
import { buildDocument, type SourceOutcome } from "./document.ts";
import { askVendors, candidates } from "./fanout.ts";

export type Status = "CREATED" | "ENQUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export type ResultDocument = ReturnType<typeof buildDocument>;

export type SubmitOutcome =
  | { kind: "done"; json: Buffer }
  | { kind: "pending"; request: RequestsTable }
  | { kind: "failed"; request: RequestsTable; errors: Record<string, string> };

export const subjectKey = (s: Subject) => `${s.superType}/${s.type}/${s.value}`;

export interface Lookups {
  submit(subject: Subject, force: boolean, depth: number): Promise<SubmitOutcome>;
  getRequest(id: string): Promise<RequestsTable | undefined>;
  processRequest(id: string): Promise<void>;
  document(subject: Subject, depth: number): Promise<ResultDocument | undefined>;
}

export interface LookupDeps {
  store: Store;
  queue: JobQueue;
  config: IntelConfig;
  connectors: Connector[];
}

const ACTIVE: Status[] = ["ENQUEUED", "PROCESSING"];
const GRAPH_VERSION = "graph_version";

export function createLookups({ store, queue, config, connectors }: LookupDeps): Lookups {
  const { db } = store;
  const recordAsk = askRecorder(db);

  async function document(subject: Subject, depth: number): Promise<ResultDocument | undefined> {
    const lookup = await db
      .selectFrom("lookups")
      .selectAll()
      .where("subject_key", "=", subjectKey(subject))
      .executeTakeFirst();
    const root = lookup?.root_entity
      ? { id: lookup.root_entity }
      : await findEntity(db, { superType: subject.superType, type: subject.type, name: subject.value });
    if (!root) return undefined;
    const hood = await readNeighbourhood(db, root.id, depth);
    if (!hood) return undefined;
    const req = lookup
      ? await db
          .selectFrom("requests")
          .select("vendors")
          .where("id", "=", lookup.request_id)
          .executeTakeFirst()
      : undefined;
    return buildDocument(hood, req ? (JSON.parse(req.vendors) as Record<string, SourceOutcome>) : {});
  }

  /**
   * Stored answers are served from rendered JSON kept in memory, keyed by the graph version that
   * every finished lookup bumps in the database (so several processes stay consistent).
   */
  const rendered = new Map<string, { version: string; json: Buffer }>();
  const RENDERED_MAX = 1000;

  async function graphVersion(): Promise<string> {
    const row = await db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", GRAPH_VERSION)
      .executeTakeFirst();
    return row?.value ?? "";
  }

  async function renderedDocument(subject: Subject, depth: number): Promise<Buffer | undefined> {
    const cacheKey = `${depth}|${subjectKey(subject)}`;
    const version = await graphVersion();
    const hit = rendered.get(cacheKey);
    if (hit?.version === version) return hit.json;
    const doc = await document(subject, depth);
    if (!doc) return undefined;
    // Kept encoded: turning a large string into UTF-8 bytes on every answer cost more than the queries.
    const json = Buffer.from(JSON.stringify(doc));
    rendered.delete(cacheKey);
    rendered.set(cacheKey, { version, json });
    if (rendered.size > RENDERED_MAX) rendered.delete(rendered.keys().next().value as string);
    return json;
  }

  /** Finds the running lookup of this subject, or creates and enqueues one — atomically. */
  async function joinOrCreate(subject: Subject, force: boolean): Promise<RequestsTable> {
    const key = subjectKey(subject);
    return db.transaction().execute(async (tx) => {
      if (store.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(tx);
      const active = await tx
        .selectFrom("requests")
        .selectAll()
        .where("subject_key", "=", key)
        .where("status", "in", ACTIVE)
        .orderBy("created_at", "desc")
        .executeTakeFirst();
      if (active) return active;
      const row: RequestsTable = {
        id: newId(),
        super_type: subject.superType,
        type: subject.type,
        value: subject.value,
        subject_key: key,
        force: force ? 1 : 0,
        status: "ENQUEUED",
        vendors: "{}",
        error: null,
        created_at: nowIso(),
        started_at: null,
        finished_at: null,
      };
      await tx.insertInto("requests").values(row).execute();
      await queue.enqueue(row.id, tx);
      return row;
    });
  }

  async function submit(subject: Subject, force: boolean, depth: number): Promise<SubmitOutcome> {
    const key = subjectKey(subject);
    await recordAsk(key);
    if (!force) {
      const active = await db
        .selectFrom("requests")
        .selectAll()
        .where("subject_key", "=", key)
        .where("status", "in", ACTIVE)
        .executeTakeFirst();
      if (active) return { kind: "pending", request: active };
      const lookup = await db
        .selectFrom("lookups")
        .selectAll()
        .where("subject_key", "=", key)
        .executeTakeFirst();
      if (lookup?.status === "SUCCEEDED") {
        const json = await renderedDocument(subject, depth);
        if (json) return { kind: "done", json };
      }
      if (
        lookup?.status === "FAILED" &&
        Date.now() - Date.parse(lookup.finished_at) < config.failureCooldownMs
      ) {
        const request = await db
          .selectFrom("requests")
          .selectAll()
          .where("id", "=", lookup.request_id)
          .executeTakeFirstOrThrow();
        return { kind: "failed", request, errors: vendorErrors(request) };
      }
    }
    return { kind: "pending", request: await joinOrCreate(subject, force) };
  }

  /**
   * Runs a lookup; an unexpected failure ends the request FAILED with the reason (never a silent
   * retry loop). The database going away for a moment is not the request's fault: the job is
   * retried (the queue's backoff) and the request stays PROCESSING.
   */
  async function processRequest(id: string): Promise<void> {
    try {
      await runLookup(id);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      const message = `internal error: ${err instanceof Error ? err.message : String(err)}`;
      await db
        .updateTable("requests")
        .set({ status: "FAILED", error: message, finished_at: nowIso() })
        .where("id", "=", id)
        .execute();
      throw err;
    }
  }

  async function runLookup(id: string): Promise<void> {
    const request = await db.selectFrom("requests").selectAll().where("id", "=", id).executeTakeFirst();
    if (!request || !ACTIVE.includes(request.status as Status)) return; // already finished: at-least-once delivery
    await db
      .updateTable("requests")
      .set({ status: "PROCESSING", started_at: nowIso() })
      .where("id", "=", id)
      .execute();
    const subject: Subject = { superType: request.super_type, type: request.type, value: request.value };
    const root = { superType: subject.superType, type: subject.type, name: subject.value };
    const rootId = await upsertEntity(db, root, null);
    const asked = candidates(connectors, subject, await configuredVendors(db));
    const answers = await askVendors(subject, asked, {
      config,
      takeCredentials: (v) => takeCredentials(db, v),
    });
    const outcomes: Record<string, SourceOutcome> = {};
    for (const a of answers) {
      outcomes[a.connector.id] = a.outcome;
      if (a.fragment) {
        try {
          await saveFragment(db, root, a.fragment, a.connector.id);
        } catch (err) {
          if (isDatabaseUnavailable(err)) throw err; // not the vendor's fault: the whole lookup is retried
          outcomes[a.connector.id] = {
            status: "error",
            error: `storage: ${String(err)}`,
            fetched_at: a.outcome.fetched_at,
          };
        }
      }
    }
    const allFailed =
      answers.length > 0 && answers.every((a) => outcomes[a.connector.id]?.status === "error");
    const status: Status = allFailed ? "FAILED" : "SUCCEEDED";
    const finishedAt = nowIso();
    await db.transaction().execute(async (tx) => {
      await tx
        .updateTable("requests")
        .set({
          status,
          vendors: JSON.stringify(outcomes),
          error: allFailed ? "every vendor failed" : null,
          finished_at: finishedAt,
        })
        .where("id", "=", id)
        .execute();
      await tx
        .insertInto("lookups")
        .values({
          subject_key: request.subject_key,
          root_entity: rootId,
          request_id: id,
          status,
          finished_at: finishedAt,
        })
        .onConflict((oc) =>
          oc
            .column("subject_key")
            .doUpdateSet({ root_entity: rootId, request_id: id, status, finished_at: finishedAt }),
        )
        .execute();
      await tx
        .insertInto("settings")
        .values({ key: GRAPH_VERSION, value: newId() })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: newId() }))
        .execute();
    });
  }

  return {
    submit,
    processRequest,
    document,
    getRequest: (id) => db.selectFrom("requests").selectAll().where("id", "=", id).executeTakeFirst(),
  };
}

export function vendorErrors(request: RequestsTable): Record<string, string> {
  const vendors = JSON.parse(request.vendors) as Record<string, SourceOutcome>;
  return Object.fromEntries(Object.entries(vendors).flatMap(([k, v]) => (v.error ? [[k, v.error]] : [])));
}
