/**
 * The intel benchmarks' stored subject: a root domain with 50 neighbour addresses (relations) and
 * 20 events, looked up successfully, and an API key to ask about it (`bench intel`, `instructions.ts`).
 */
import { openStore } from "../../src/intel/store/db.ts";
import { saveFragment } from "../../src/intel/store/graph.ts";
import { benchApiKey, succeededLookup } from "../lib/large-result.ts";

export const ROOT = { superType: "OBSERVABLE", type: "DOMAIN", name: "bench.example.org" };

/** Seeds the database at `url`; the API key. */
export async function seed(url: string): Promise<string> {
  const store = await openStore(url);
  try {
    const entities = Array.from({ length: 50 }, (_, i) => ({
      superType: "OBSERVABLE",
      type: "IPV4",
      name: `192.0.2.${i + 1}`,
      attributes: { country: "NL", asn: "AS64500" },
    }));
    const rootId = await saveFragment(
      store.db,
      ROOT,
      {
        entities,
        relations: entities.map((e) => ({ name: "resolves", from: ROOT, to: e })),
        events: Array.from({ length: 20 }, (_, i) => ({
          type: "PASSIVE_DNS",
          name: `resolution ${i}`,
          firstSeen: new Date(Date.UTC(2026, 0, 1 + i * 3)).toISOString(),
          lastSeen: new Date(Date.UTC(2026, 0, 2 + i * 3)).toISOString(),
          involved: ROOT,
        })),
      },
      "bench",
    );
    await succeededLookup(store, ROOT, rootId);
    return await benchApiKey(store);
  } finally {
    await store.close();
  }
}
