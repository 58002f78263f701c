/**
 * The local feed copies as the panel's Status page shows them: each file, its entries, when it
 * was downloaded and last confirmed (its age), and why its last refresh failed, if it did.
 */
import { listCopies } from "../store/feeds.ts";
import type { WithStore } from "./index.ts";

export interface FeedCopyView {
  id: string;
  name: string;
  url: string;
  entries: number;
  fetchedAt: string | null;
  checkedAt: string | null;
  error: string | null;
}

export async function feedCopies({ store }: WithStore): Promise<FeedCopyView[]> {
  return (await listCopies(store.db)).map((c) => ({
    id: c.id,
    name: c.name,
    url: c.url,
    entries: c.entries,
    fetchedAt: c.fetched_at,
    checkedAt: c.checked_at,
    error: c.error,
  }));
}
