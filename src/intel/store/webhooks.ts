/**
 * Webhooks, the requests they wait for, and their deliveries (the durable delivery log): every
 * SQL statement. A delivery is made once per (webhook, event, target), claimed for one attempt by
 * a conditional UPDATE (one sender wins), and retried until it is delivered or out of attempts.
 */
import type { Kysely } from "kysely";
import type { Database, WebhookDeliveriesTable, WebhooksTable } from "./schema.ts";
import { newId, nowIso } from "./time.ts";

type Db = Kysely<Database>;

/** Sets the key's webhook (replacing any), with a new secret. */
export async function putWebhook(
  db: Db,
  hook: Omit<WebhooksTable, "id" | "created_at">,
): Promise<WebhooksTable> {
  const row: WebhooksTable = { id: newId(), created_at: nowIso(), ...hook };
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("webhooks").where("token_hash", "=", hook.token_hash).execute();
    await tx.insertInto("webhooks").values(row).execute();
  });
  return row;
}

/** The key's webhook, if its key is still valid. */
export const webhookOfKey = (db: Db, tokenHash: string): Promise<WebhooksTable | undefined> =>
  db
    .selectFrom("webhooks")
    .innerJoin("tokens", "tokens.hash", "webhooks.token_hash")
    .selectAll("webhooks")
    .where("webhooks.token_hash", "=", tokenHash)
    .where("tokens.revoked", "=", 0)
    .executeTakeFirst();

export const getWebhook = (db: Db, id: string): Promise<WebhooksTable | undefined> =>
  db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();

export async function deleteWebhook(db: Db, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom("webhooks").where("token_hash", "=", tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function addWatch(db: Db, requestId: string, webhookId: string): Promise<void> {
  await db
    .insertInto("webhook_watches")
    .values({ request_id: requestId, webhook_id: webhookId })
    .onConflict((oc) => oc.columns(["request_id", "webhook_id"]).doNothing())
    .execute();
}

/** Webhooks waiting for a request, whose keys are still valid. */
export const watchersOf = (db: Db, requestId: string): Promise<WebhooksTable[]> =>
  db
    .selectFrom("webhook_watches")
    .innerJoin("webhooks", "webhooks.id", "webhook_watches.webhook_id")
    .innerJoin("tokens", "tokens.hash", "webhooks.token_hash")
    .selectAll("webhooks")
    .where("webhook_watches.request_id", "=", requestId)
    .where("tokens.revoked", "=", 0)
    .execute();

/** Records a delivery to make; a second one for the same (webhook, event, target) is ignored. */
export async function addDelivery(
  db: Db,
  d: { webhookId: string; event: string; targetId: string; body: string },
): Promise<void> {
  const now = nowIso();
  await db
    .insertInto("webhook_deliveries")
    .values({
      id: newId(),
      webhook_id: d.webhookId,
      event: d.event,
      target_id: d.targetId,
      body: d.body,
      status: "pending",
      attempts: 0,
      next_attempt_at: now,
      last_status: null,
      last_error: null,
      created_at: now,
      finished_at: null,
    })
    .onConflict((oc) => oc.columns(["webhook_id", "event", "target_id"]).doNothing())
    .execute();
}

/** Pending deliveries whose next attempt is due, oldest first. */
export const dueDeliveries = (db: Db, limit: number): Promise<WebhookDeliveriesTable[]> =>
  db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", nowIso())
    .orderBy("next_attempt_at")
    .limit(limit)
    .execute();

/**
 * Takes one attempt of a due delivery: counts it and moves its next attempt past `holdMs` (if this
 * sender dies mid-attempt, the delivery is due again then). False when another sender took it.
 */
export async function claimAttempt(db: Db, d: WebhookDeliveriesTable, holdMs: number): Promise<boolean> {
  const result = await db
    .updateTable("webhook_deliveries")
    .set({ attempts: d.attempts + 1, next_attempt_at: new Date(Date.now() + holdMs).toISOString() })
    .where("id", "=", d.id)
    .where("status", "=", "pending")
    .where("attempts", "=", d.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An attempt's outcome: delivered, failed for good, or to retry at `retryAt`. */
export async function recordAttempt(
  db: Db,
  id: string,
  outcome: {
    status: "delivered" | "failed" | "pending";
    httpStatus: number | null;
    error: string | null;
    retryAt?: string;
  },
): Promise<void> {
  const done = outcome.status !== "pending";
  await db
    .updateTable("webhook_deliveries")
    .set({
      status: outcome.status,
      last_status: outcome.httpStatus,
      last_error: outcome.error,
      finished_at: done ? nowIso() : null,
      ...(outcome.retryAt ? { next_attempt_at: outcome.retryAt } : {}),
    })
    .where("id", "=", id)
    .execute();
}

/** The delivery log, newest first: one webhook's, or every webhook's (the panel) with its URL. */
export function deliveryLog(
  db: Db,
  opts: { webhookId?: string; limit: number },
): Promise<Array<Omit<WebhookDeliveriesTable, "body"> & { url: string }>> {
  return db
    .selectFrom("webhook_deliveries")
    .innerJoin("webhooks", "webhooks.id", "webhook_deliveries.webhook_id")
    .select([
      "webhook_deliveries.id",
      "webhook_deliveries.webhook_id",
      "webhook_deliveries.event",
      "webhook_deliveries.target_id",
      "webhook_deliveries.status",
      "webhook_deliveries.attempts",
      "webhook_deliveries.next_attempt_at",
      "webhook_deliveries.last_status",
      "webhook_deliveries.last_error",
      "webhook_deliveries.created_at",
      "webhook_deliveries.finished_at",
      "webhooks.url",
    ])
    .$if(opts.webhookId !== undefined, (q) =>
      q.where("webhook_deliveries.webhook_id", "=", opts.webhookId ?? ""),
    )
    .orderBy("webhook_deliveries.created_at", "desc")
    .limit(opts.limit)
    .execute();
}
