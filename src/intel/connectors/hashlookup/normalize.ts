/**
 * CIRCL hashlookup's record → graph: the hash with its trust, product and source, its other hashes
 * ("same file as") and the packages holding it ("contained in").
 */

import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EntityRef,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface HashlookupRecord {
  FileName?: string;
  FileSize?: string;
  MD5?: string;
  "SHA-1"?: string;
  "SHA-256"?: string;
  SSDEEP?: string;
  TLSH?: string;
  source?: string;
  db?: string;
  mimetype?: string;
  KnownMalicious?: string;
  "hashlookup:trust"?: number;
  "hashlookup:parent-total"?: number;
  ProductCode?: { ProductName?: string; ProductVersion?: string };
  parents?: Array<{ "SHA-1"?: string; PackageName?: string; PackageVersion?: string; FileName?: string }>;
}

export function normalizeHashlookup(raw: unknown, subject: Subject): Fragment {
  const r = (raw ?? {}) as HashlookupRecord;
  // A record always names the file's hashes; without them this is not CIRCL's answer, and taking
  // it would call an unknown file "known" (seen with a broken proxy answering 200).
  if (![r.MD5, r["SHA-1"], r["SHA-256"]].some((h) => typeof h === "string" && h.length > 0))
    throw new VendorError("bad_response", "no file hash in the record");
  for (const h of [r.MD5, r["SHA-1"], r["SHA-256"]])
    if (h !== undefined && h !== null && typeof h !== "string")
      throw new VendorError("bad_response", "a file hash that is not a string");
  const root = rootRef(subject);
  const attributes = facts({
    known_file: "true",
    hashlookup_trust: r["hashlookup:trust"],
    known_malicious: r.KnownMalicious,
    file_name: r.FileName,
    size: r.FileSize,
    mimetype: r.mimetype,
    source: r.source ?? r.db,
    ssdeep: r.SSDEEP,
    tlsh: r.TLSH,
    product: [r.ProductCode?.ProductName, r.ProductCode?.ProductVersion].filter(Boolean).join(" "),
    parent_count: r["hashlookup:parent-total"],
  });
  const entities: EntityDraft[] = [{ ...root, attributes }];
  const relations: RelationDraft[] = [];
  for (const [type, value] of [
    ["MD5", r.MD5],
    ["SHA1", r["SHA-1"]],
    ["SHA256", r["SHA-256"]],
  ] as const) {
    if (!value || type === subject.type) continue;
    const ref: EntityRef = { superType: "OBSERVABLE", type, name: value.toLowerCase() };
    entities.push(ref);
    relations.push({ name: "same file as", from: root, to: ref });
  }
  for (const p of r.parents ?? []) {
    const sha1 = p["SHA-1"]?.toLowerCase();
    if (!sha1) continue;
    const parent: EntityRef = { superType: "OBSERVABLE", type: "SHA1", name: sha1 };
    const label = [p.PackageName, p.PackageVersion].filter(Boolean).join(" ");
    entities.push({ ...parent, attributes: label ? { package: label } : {} });
    relations.push({ name: "contained in", from: root, to: parent });
  }
  return { entities, relations, events: [] };
}
