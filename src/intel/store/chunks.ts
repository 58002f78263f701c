/**
 * Lists bound into SQL `in (…)` a slice at a time: SQLite refuses a statement with more than 32,766
 * variables and PostgreSQL one with more than 65,535, and a graph's id lists have no such bound.
 * 1,000 per slice keeps a statement holding two lists far below both.
 */
export const IN_LIST_CHUNK = 1000;

/** `items` in slices of at most `size`. */
export function chunked<T>(items: readonly T[], size = IN_LIST_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The rows `query` returns for each slice of `items`, in one list (one statement per slice). */
export async function selectInChunks<T, R>(
  items: readonly T[],
  query: (slice: T[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (const slice of chunked(items)) for (const row of await query(slice)) out.push(row);
  return out;
}
