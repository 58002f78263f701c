/**
 * A large stored result for the benchmarks: one root with thousands of related entities, written
 * hundreds of rows per statement, and the SUCCEEDED request and lookup that make it exportable.
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
  const requestId = newId();
  const key = subjectKey({ superType: ROOT.superType, type: ROOT.type, value: ROOT.name });
  await store.db
    .insertInto("requests")
    .values({
      ...{ id: requestId, super_type: ROOT.superType, type: ROOT.type, value: ROOT.name },
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
  const user = await createUser(store.db, "bench", "bench-password", false);
  return { key: (await createToken(store.db, user.id)).key, requestId };
}
