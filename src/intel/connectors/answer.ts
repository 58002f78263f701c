/**
 * Reading a vendor's raw answer the way the normalize contract (types.ts) wants: an answer that is
 * not even an object is not the vendor's (refused as bad_response); inside one, list items that
 * are not objects are skipped rather than crashing the whole fragment.
 */
import { VendorError } from "./types.ts";

/** The answer as the vendor's object; a non-object (null, list, text, number) is refused. */
export function answerObject<T>(raw: unknown, vendor: string): T {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new VendorError("bad_response", `${vendor} answered something that is not an object`);
  return raw as T;
}

/** The object items of a list from the answer; a missing or non-list value is an empty list. */
export function objectsIn<T>(list: unknown): T[] {
  if (!Array.isArray(list)) return [];
  return list.filter((item): item is T => typeof item === "object" && item !== null && !Array.isArray(item));
}
