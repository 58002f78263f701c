/**
 * A DNS record as a subject: `TYPE NAME VALUE` (`A example.org 192.0.2.1`, `MX example.org 10
 * mail.example.org`), the names Loupe gives DNS_RECORD entities. Vendors are asked about NAME and
 * the record is found among the records they list; the record's own text gives its links.
 */
import type { EntityDraft, EntityRef, Fragment, RelationDraft, Subject } from "./types.ts";

export interface DnsRecord {
  type: string;
  name: string;
  value: string;
}

const HOST = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

const bare = (host: string) => host.trim().toLowerCase().replace(/\.$/, "");

/** A DNS name (labels of letters, digits, `-`, `_`), compared without case and final dot. */
export const isHostName = (value: string) => HOST.test(bare(value));

/** Null when the value is not `TYPE NAME VALUE` with a host name as NAME. */
export function parseDnsRecord(value: string): DnsRecord | null {
  const m = /^\s*([A-Za-z]{1,10})\s+(\S+)\s+(.+?)\s*$/.exec(value);
  if (!m) return null;
  const name = bare(m[2]!);
  if (!HOST.test(name)) return null;
  return { type: m[1]!.toUpperCase(), name, value: m[3]! };
}

export const dnsRecordName = (r: DnsRecord) => `${r.type} ${r.name} ${r.value}`;

/** The same record: type and name equal, values equal once host names lose case and final dot. */
export function sameRecord(a: DnsRecord, b: DnsRecord): boolean {
  const norm = (v: string) => v.trim().replace(/\.$/, "").toLowerCase();
  return a.type === b.type && bare(a.name) === bare(b.name) && norm(a.value) === norm(b.value);
}

/** What the record's text says: NAME has the record; an address record points to an IP, others to a host. */
function targetOf(record: DnsRecord): EntityRef | undefined {
  if (record.type === "A") return { superType: "OBSERVABLE", type: "IPV4", name: record.value };
  if (record.type === "AAAA") return { superType: "OBSERVABLE", type: "IPV6", name: record.value };
  if (["CNAME", "NS", "MX", "PTR"].includes(record.type)) {
    const host = bare(record.value.split(/\s+/).at(-1) ?? "");
    if (HOST.test(host)) return { superType: "OBSERVABLE", type: "HOSTNAME", name: host };
  }
  return undefined;
}

/**
 * The fragment for a record subject when a vendor listed it: the record with the vendor's facts,
 * its name ("has DNS record") and its target ("points to"). An unlisted record gives nothing.
 */
export function dnsRecordFragment(
  subject: Subject,
  listed: Array<DnsRecord & { attributes: Record<string, string> }>,
): Fragment {
  const wanted = parseDnsRecord(subject.value);
  const found = wanted && listed.find((r) => sameRecord(r, wanted));
  if (!wanted || !found) return { entities: [], relations: [], events: [] };
  const root = { superType: subject.superType, type: subject.type, name: subject.value };
  // Two labels is a registered domain in most zones; deeper names are hosts (www.example.org).
  const ownerType = wanted.name.split(".").length <= 2 ? "DOMAIN" : "HOSTNAME";
  const owner: EntityRef = { superType: "OBSERVABLE", type: ownerType, name: wanted.name };
  const entities: EntityDraft[] = [
    { ...root, attributes: { record_type: wanted.type, ...found.attributes } },
    owner,
  ];
  const relations: RelationDraft[] = [{ name: "has DNS record", from: owner, to: root }];
  const target = targetOf(wanted);
  if (target) {
    entities.push(target);
    relations.push({ name: "points to", from: root, to: target });
  }
  return { entities, relations, events: [] };
}
