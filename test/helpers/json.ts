/** Tests read JSON answers loosely: assertions, not types, check their shape. */
// biome-ignore lint/suspicious/noExplicitAny: test-only loose JSON access.
export type Json = any;

export async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}
