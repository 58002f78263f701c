/**
 * A large stored result for the benchmarks: one root with thousands of related entities, written
 * hundreds of rows per statement, and the SUCCEEDED request and lookup that make it exportable
 * (`succeededLookup` and `benchApiKey` also serve bench/intel/seed.ts).
 */
import { subjectKey } from "../../src/intel/domain/requests.ts";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { chunked } from "../../src/intel/store/chunks.ts";
import type { Store } from "../../src/intel/store/db.ts";
import { upsertEntity } from "../../src/intel/store/graph.ts";
import { newId, nowIso } from "../../src/intel/store/time.ts";

/** The large result's subject (its root entity). */
export const ROOT = { superType: "OBSERVABLE", type: "SHA1", name: "ab".repeat(20) };

/** The root, `entities - 1` domains related to it, a SUCCEEDED request and its lookup; an API key. */
export async function seedLargeResult(
  store: Store,
  entities: number,
): Promise<{ key: string; requestId: string }> {
  const rootId = await upsertEntity(store.db, ROOT, null);
  const now = nowIso();
  const rows = Array.from({ length: entities - 1 }, (_, i) => ({
    id: newId(),
    super_type: "OBSERVABLE",
    type: "DOMAIN",
    name: `host${i}.bench.example.org`,
    description: "",
    source_url: "",
    tlp: "WHITE",
    pap: "WHITE",
    attributes: '{"source_vendor":"bench"}',
    created_at: now,
    updated_at: now,
  }));
  for (const slice of chunked(rows, 500)) await store.db.insertInto("entities").values(slice).execute();
  const relations = rows.map((e) => ({
    id: newId(),
    name: "resolves",
    description: "",
    obj_from: rootId,
    obj_to: e.id,
    attributes: "{}",
    created_at: now,
  }));
  for (const slice of chunked(relations, 500)) await store.db.insertInto("relations").values(slice).execute();
  const requestId = await succeededLookup(store, ROOT, rootId);
  return { key: await benchApiKey(store), requestId };
}

/**
 * A SUCCEEDED request about `root` and the lookup that points its subject at `rootId`: what makes a
 * stored graph answerable and exportable. The request's id.
 */
export async function succeededLookup(
  store: Store,
  root: { superType: string; type: string; name: string },
  rootId: string,
): Promise<string> {
  const now = nowIso();
  const requestId = newId();
  const key = subjectKey({ superType: root.superType, type: root.type, value: root.name });
  await store.db
    .insertInto("requests")
    .values({
      ...{ id: requestId, super_type: root.superType, type: root.type, value: root.name },
      ...{ subject_key: key, force: 0, status: "SUCCEEDED", vendors: "{}", error: null },
      ...{ created_at: now, started_at: now, finished_at: now },
    })
    .execute();
  await store.db
    .insertInto("lookups")
    .values({
      subject_key: key,
      root_entity: rootId,
      request_id: requestId,
      status: "SUCCEEDED",
      finished_at: now,
    })
    .execute();
  return requestId;
}

/** A regular user "bench" and an API key for it. */
export async function benchApiKey(store: Store): Promise<string> {
  const user = await createUser(store.db, "bench", "bench-password", false);
  return (await createToken(store.db, user.id)).key;
}
