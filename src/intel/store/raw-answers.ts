/** Vendors' raw answers to requests (already redacted and cut by domain/raw-answers.ts). */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export interface StoredRawAnswer {
  vendor: string;
  body: string;
  size: number;
  truncated: boolean;
  created_at: string;
}

/** Keeps the answers of one request run; a retried run replaces what an earlier attempt kept. */
export async function saveRawAnswers(
  db: Kysely<Database>,
  requestId: string,
  answers: ReadonlyArray<{
    connector: { id: string };
    raw?: { body: string; size: number; truncated: boolean };
  }>,
): Promise<void> {
  const created_at = nowIso();
  for (const { connector, raw } of answers) {
    if (!raw) continue;
    const row = { body: raw.body, size: raw.size, truncated: raw.truncated ? 1 : 0, created_at };
    await db
      .insertInto("request_raw_answers")
      .values({ request_id: requestId, vendor: connector.id, ...row })
      .onConflict((oc) => oc.columns(["request_id", "vendor"]).doUpdateSet(row))
      .execute();
  }
}

export async function rawAnswersOf(db: Kysely<Database>, requestId: string): Promise<StoredRawAnswer[]> {
  const rows = await db
    .selectFrom("request_raw_answers")
    .select(["vendor", "body", "size", "truncated", "created_at"])
    .where("request_id", "=", requestId)
    .orderBy("vendor")
    .execute();
  return rows.map((r) => ({ ...r, truncated: r.truncated === 1 }));
}
