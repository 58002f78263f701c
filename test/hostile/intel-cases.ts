/**
 * Hostile vendor answers for intel, built in code (shared by test/intel/hostile-graphs.test.ts and
 * the corpus): CIRCL hashlookup's record of a file held by 40,000 packages, in its real format. Such
 * an answer once made one subject a 40,000-entity result that blocked intel for seconds per export.
 */

/** The parent packages a hostile record lists. */
export const HOSTILE_PARENTS = 40_000;

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** Parent package `i` of a hostile record (a SHA-1 of its own). */
export const hashlookupParent = (i: number) => ({
  "SHA-1": `cc${hex(i, 38)}`,
  PackageName: "pkg",
  PackageVersion: String(i),
});

/** A hashlookup record of `sha1` (with its MD5 and SHA-256, which differ from every parent's) listing `parents`. */
export function hashlookupRecord(sha1: string, parents: unknown[]) {
  return {
    MD5: `dd${sha1.slice(2, 32)}`,
    "SHA-1": sha1,
    "SHA-256": `ee${sha1}${"0".repeat(22)}`,
    FileName: "x",
    "hashlookup:parent-total": parents.length,
    parents,
  };
}

/** The file the hostile record is about, and the record: 40,000 parents. */
export const HOSTILE_SHA1 = `aa${hex(1, 38)}`;
export const hostileHashlookupRecord = () =>
  hashlookupRecord(
    HOSTILE_SHA1,
    Array.from({ length: HOSTILE_PARENTS }, (_, i) => hashlookupParent(i)),
  );
