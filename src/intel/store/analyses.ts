/**
 * Every SQL statement about files analyses: the analysis rows, their tree's node index (what the
 * history's `q` matches: any node's name or hash) and their enriched indicators.
 * The rules (who sees what, the cache, leases) are in services/analyses.ts.
 */
import { type Kysely, sql } from "kysely";
import type { AnalysesTable, AnalysisIndicatorsTable, AnalysisNodesTable } from "./analysis-schema.ts";
import { containsPattern } from "./browse.ts";
import { chunked } from "./chunks.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

type Db = Kysely<Database>;

export type AnalysisRow = AnalysesTable & { username: string | null };
export type NodeRow = Omit<AnalysisNodesTable, "analysis_id">;
export type IndicatorRow = AnalysisIndicatorsTable & {
  request_status: string | null;
  request_vendors: string | null;
};

/** Columns of a row read back, with its owner's name (PostgreSQL's bigint size comes back as text). */
function selectAnalyses(db: Db) {
  return db
    .selectFrom("analyses as a")
    .leftJoin("users as u", "u.id", "a.user_id")
    .selectAll("a")
    .select("u.username as username");
}

const fixSize = (row: AnalysisRow): AnalysisRow => ({ ...row, size: Number(row.size) });

export async function insertAnalysis(db: Db, row: AnalysesTable, nodes: NodeRow[] = []): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto("analyses").values(row).execute();
    await insertNodes(tx, row.id, nodes);
  });
}

/** 200 rows per statement: 6 variables each keeps far below both databases' variable limits. */
async function insertNodes(db: Db, analysisId: string, nodes: NodeRow[]): Promise<void> {
  for (const slice of chunked(nodes, 200))
    await db
      .insertInto("analysis_nodes")
      .values(slice.map((n) => ({ ...n, analysis_id: analysisId })))
      .execute();
}

export async function getAnalysis(db: Db, id: string): Promise<AnalysisRow | undefined> {
  const row = await selectAnalyses(db).where("a.id", "=", id).executeTakeFirst();
  return row && fixSize(row);
}

/** Records a finished analysis and its node index in one transaction; false when it was not pending. */
export async function finishAnalysis(
  db: Db,
  id: string,
  done: {
    result: string;
    verdict: string | null;
    nodes: NodeRow[];
    filePath: string | null;
    thumbnail?: Buffer | null;
  },
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable("analyses")
      .set({
        status: "done",
        result: done.result,
        verdict: done.verdict,
        finished_at: nowIso(),
        lease_until: null,
        file_path: done.filePath,
      })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await insertNodes(tx, id, done.nodes);
    if (done.thumbnail)
      await tx.insertInto("analysis_thumbnails").values({ analysis_id: id, png: done.thumbnail }).execute();
    return true;
  });
}

/** The thumbnail kept with an analysis, or undefined. */
export async function thumbnailOf(db: Db, id: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom("analysis_thumbnails")
    .select("png")
    .where("analysis_id", "=", id)
    .executeTakeFirst();
  return row && Buffer.from(row.png);
}

/** Whether an analysis has a thumbnail, without reading it. */
export async function hasThumbnail(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom("analysis_thumbnails")
    .select("analysis_id")
    .where("analysis_id", "=", id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function failAnalysis(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable("analyses")
    .set({ status: "failed", error, finished_at: nowIso(), lease_until: null, file_path: null })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .execute();
}

/** Takes a pending analysis for this runner until `leaseUntil`, unless another runner holds it. */
export async function leaseAnalysis(db: Db, id: string, leaseUntil: string): Promise<boolean> {
  const now = nowIso();
  const updated = await db
    .updateTable("analyses")
    .set({ lease_until: leaseUntil })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Pending analyses whose runner's lease ran out (a process stopped while analysing them). */
export async function interruptedAnalyses(db: Db, limit: number): Promise<AnalysesTable[]> {
  return db
    .selectFrom("analyses")
    .selectAll()
    .where("status", "=", "pending")
    .where("lease_until", "<", nowIso())
    .orderBy("created_at")
    .limit(limit)
    .execute();
}

/** The newest finished analysis of the same file with the same rules since `since` (the cache). */
export async function findCached(
  db: Db,
  key: { sha256: string; rulesKey: string },
  since: string,
): Promise<AnalysesTable | undefined> {
  return db
    .selectFrom("analyses")
    .selectAll()
    .where("sha256", "=", key.sha256)
    .where("rules_key", "=", key.rulesKey)
    .where("status", "=", "done")
    .where("cached_from", "is", null)
    .where("finished_at", ">=", since)
    .orderBy("finished_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

export async function nodesOf(db: Db, id: string): Promise<NodeRow[]> {
  return db
    .selectFrom("analysis_nodes")
    .select(["path", "name", "sha256", "sha1", "md5"])
    .where("analysis_id", "=", id)
    .execute();
}

export interface AnalysisFilter {
  /** Matches any node's name (contains, any case) or md5/sha1/sha256 (exact, any case). */
  q?: string;
  verdict?: string;
  /** Only this user's analyses and shared ones (a regular user's view). */
  visibleTo?: number;
  /** Only the analyses of the user with this name. */
  username?: string;
  from?: string;
  to?: string;
}

function filtered(db: Db, f: AnalysisFilter) {
  let q = selectAnalyses(db);
  if (f.visibleTo !== undefined) {
    const userId = f.visibleTo;
    q = q.where((eb) => eb.or([eb("a.user_id", "=", userId), eb("a.shared", "=", 1)]));
  }
  if (f.verdict) q = q.where("a.verdict", "=", f.verdict);
  if (f.username) q = q.where("u.username", "=", f.username);
  if (f.from) q = q.where("a.created_at", ">=", f.from);
  if (f.to) q = q.where("a.created_at", "<", f.to);
  const text = f.q?.trim();
  if (text) {
    const hash = text.toLowerCase();
    const like = containsPattern(text);
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("analysis_nodes as n")
          .select("n.analysis_id")
          .whereRef("n.analysis_id", "=", "a.id")
          .where((eb) =>
            eb.or([
              eb("n.sha256", "=", hash),
              eb("n.sha1", "=", hash),
              eb("n.md5", "=", hash),
              sql<boolean>`lower(n.name) like ${like} escape '\\'`,
            ]),
          ),
      ),
    );
  }
  return q;
}

/** One page of analyses, newest first, and how many match in all. */
export async function listAnalyses(
  db: Db,
  f: AnalysisFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: AnalysisRow[]; total: number }> {
  const rows = await filtered(db, f)
    .orderBy("a.created_at", "desc")
    .orderBy("a.id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const count = await filtered(db, f)
    .clearSelect()
    .select(db.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return { rows: rows.map(fixSize), total: Number(count.n) };
}

export async function setShared(db: Db, id: string, shared: boolean): Promise<boolean> {
  const updated = await db
    .updateTable("analyses")
    .set({ shared: shared ? 1 : 0 })
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Records the indicators asked for an analysis (replacing an earlier enrichment's rows). */
export async function saveIndicators(db: Db, id: string, rows: AnalysisIndicatorsTable[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("analysis_indicators").where("analysis_id", "=", id).execute();
    for (const slice of chunked(rows, 100))
      await tx.insertInto("analysis_indicators").values(slice).execute();
  });
}

/** An analysis' enriched indicators with their request's status and per-vendor outcomes. */
export async function indicatorsOf(db: Db, id: string): Promise<IndicatorRow[]> {
  return db
    .selectFrom("analysis_indicators as i")
    .leftJoin("requests as r", "r.id", "i.request_id")
    .selectAll("i")
    .select(["r.status as request_status", "r.vendors as request_vendors"])
    .where("i.analysis_id", "=", id)
    .orderBy("i.type")
    .orderBy("i.value")
    .execute();
}

/** Kept files (done or failed analyses) older than `before`: the purge's work. */
export async function keptFilesBefore(
  db: Db,
  before: string,
  limit: number,
): Promise<Array<{ id: string; file_path: string }>> {
  const rows = await db
    .selectFrom("analyses")
    .select(["id", "file_path"])
    .where("status", "!=", "pending")
    .where("file_path", "is not", null)
    .where("created_at", "<", before)
    .limit(limit)
    .execute();
  return rows.flatMap((r) => (r.file_path ? [{ id: r.id, file_path: r.file_path }] : []));
}

export async function forgetFile(db: Db, id: string): Promise<void> {
  await db.updateTable("analyses").set({ file_path: null }).where("id", "=", id).execute();
}

/** Extends the leases of the pending analyses a runner holds. */
export async function renewLeases(db: Db, ids: string[], leaseUntil: string): Promise<void> {
  for (const slice of chunked(ids))
    await db
      .updateTable("analyses")
      .set({ lease_until: leaseUntil })
      .where("id", "in", slice)
      .where("status", "=", "pending")
      .execute();
}
