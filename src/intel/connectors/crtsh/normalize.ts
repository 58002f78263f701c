/**
 * crt.sh's certificate list → graph: counts, first and last issuance, issuers on the subject; the
 * other names the certificates carry as HOSTNAME entities that `shares a certificate with` it (up
 * to 50, wildcards as their base name); a HIT event per certificate (the 20 latest), valid from–to.
 */
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface CrtEntry {
  id?: number;
  issuer_name?: string;
  common_name?: string;
  name_value?: string;
  not_before?: string;
  not_after?: string;
  serial_number?: string;
}

const MAX_SIBLINGS = 50;
const MAX_EVENTS = 20;
/** crt.sh writes UTC times without a zone. */
const utc = (t: unknown) => {
  if (typeof t !== "string") return undefined;
  const d = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};
/** The issuer's organisation (`O=`) or common name from a distinguished name. */
const issuerOf = (dn: unknown) =>
  typeof dn === "string"
    ? (/(?:^|,\s*)O=("[^"]*"|[^,]*)/.exec(dn)?.[1] ?? /CN=([^,]*)/.exec(dn)?.[1] ?? dn)
        .replace(/"/g, "")
        .trim()
    : "";

export function normalizeCrtsh(raw: unknown, subject: Subject): Fragment {
  const list = (raw as { certificates?: unknown } | null)?.certificates;
  if (!Array.isArray(list)) throw new VendorError("bad_response", "crt.sh answered no certificate list");
  const certs = list
    .filter((c): c is CrtEntry => typeof c === "object" && c !== null && !Array.isArray(c))
    .filter((c) => utc(c.not_before))
    .sort((a, b) => (utc(b.not_before) ?? "").localeCompare(utc(a.not_before) ?? ""));
  const root = rootRef(subject);
  const self = subject.value.toLowerCase();
  const names = new Set<string>();
  for (const c of certs)
    for (const n of `${c.name_value ?? ""}\n${c.common_name ?? ""}`.split(/\s+/)) {
      const name = n.trim().toLowerCase().replace(/^\*\./, "");
      if (name && name !== self && /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(name)) names.add(name);
    }
  const siblings = [...names].sort().slice(0, MAX_SIBLINGS);
  const issuers = [...new Set(certs.map((c) => issuerOf(c.issuer_name)).filter(Boolean))];
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        cert_count: certs.length,
        cert_first_issued: utc(certs.at(-1)?.not_before),
        cert_last_issued: utc(certs[0]?.not_before),
        cert_issuers: issuers.slice(0, 10).join(", "),
        cert_sibling_names: names.size,
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  for (const name of siblings) {
    const ref = { superType: "OBSERVABLE", type: "HOSTNAME", name };
    entities.push(ref);
    relations.push({ name: "shares a certificate with", from: root, to: ref });
  }
  const events: EventDraft[] = certs.slice(0, MAX_EVENTS).map((c) => {
    const from = utc(c.not_before)!;
    const to = utc(c.not_after) ?? from;
    return {
      type: "HIT",
      name: `Certificate ${c.serial_number ?? c.id ?? ""} issued by ${issuerOf(c.issuer_name) || "an unknown CA"}`.replace(
        "  ",
        " ",
      ),
      firstSeen: from,
      lastSeen: to < from ? from : to,
      attributes: facts({ crtsh_id: c.id, common_name: c.common_name }),
      involved: root,
    };
  });
  return { entities, relations, events };
}
