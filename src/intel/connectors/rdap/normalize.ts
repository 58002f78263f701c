/**
 * An RDAP answer (RFC 9083) → graph. A domain: registrar (DOMAIN_REGISTRAR, `registered with`),
 * public registrant organisation (DOMAIN_REGISTRANT, `registered by`), `created`, `expires`,
 * `updated`, `domain_status`, name servers. An IP network: name, handle, range, type, country and
 * its registrant's organisation. Redacted registrants (GDPR) give nothing.
 */
import { answerObject, objectsIn } from "../answer.ts";
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface RdapEntity {
  roles?: unknown;
  vcardArray?: unknown;
  publicIds?: unknown;
  entities?: unknown;
}

interface RdapObject extends RdapEntity {
  objectClassName?: string;
  ldhName?: string;
  handle?: string;
  name?: string;
  type?: string;
  country?: string;
  startAddress?: string;
  endAddress?: string;
  status?: unknown;
  events?: unknown;
  nameservers?: unknown;
}

/** A vCard property's text (`fn`, `org`) from a jCard (RFC 7095): ["vcard", [[name, params, type, value]…]]. */
function vcard(entity: RdapEntity, property: string): string | undefined {
  const card = Array.isArray(entity.vcardArray) ? entity.vcardArray[1] : undefined;
  if (!Array.isArray(card)) return undefined;
  const row = card.find((p) => Array.isArray(p) && p[0] === property);
  const value = Array.isArray(row) ? row[3] : undefined;
  const text = Array.isArray(value) ? value.join(" ") : value;
  return typeof text === "string" && text.trim() && !/redacted/i.test(text) ? text.trim() : undefined;
}

/** Entities with a role, nested ones included (a registrar's abuse contact sits inside it). */
function withRole(o: RdapEntity, role: string): RdapEntity[] {
  const direct = objectsIn<RdapEntity>(o.entities);
  const all = [...direct, ...direct.flatMap((e) => objectsIn<RdapEntity>(e.entities))];
  return all.filter((e) => Array.isArray(e.roles) && e.roles.includes(role));
}

function eventDate(o: RdapObject, action: string): string | undefined {
  const e = objectsIn<{ eventAction?: unknown; eventDate?: unknown }>(o.events).find(
    (ev) => ev.eventAction === action,
  );
  return typeof e?.eventDate === "string" && !Number.isNaN(Date.parse(e.eventDate)) ? e.eventDate : undefined;
}

const orgOf = (e: RdapEntity | undefined) => (e ? (vcard(e, "org") ?? vcard(e, "fn")) : undefined);
const list = (v: unknown) =>
  Array.isArray(v) ? v.filter((s) => typeof s === "string").join(", ") : undefined;

function domainFragment(o: RdapObject, subject: Subject): Fragment {
  const root = rootRef(subject);
  const registrar = withRole(o, "registrar")[0];
  const registrarName = registrar ? vcard(registrar, "fn") : undefined;
  const ianaId = objectsIn<{ type?: unknown; identifier?: unknown }>(registrar?.publicIds).find((p) =>
    String(p.type).includes("IANA"),
  )?.identifier;
  const registrant = orgOf(withRole(o, "registrant")[0]);
  const nameservers = objectsIn<{ ldhName?: unknown }>(o.nameservers)
    .map((n) => (typeof n.ldhName === "string" ? n.ldhName.toLowerCase() : ""))
    .filter(Boolean);
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        registrar: registrarName,
        registrar_iana_id: typeof ianaId === "string" ? ianaId : undefined,
        registrant_org: registrant,
        created: eventDate(o, "registration"),
        expires: eventDate(o, "expiration"),
        updated: eventDate(o, "last changed"),
        domain_status: list(o.status),
        nameservers: nameservers.join(", "),
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  if (registrarName) {
    const ref = { superType: "OBSERVABLE", type: "DOMAIN_REGISTRAR", name: registrarName };
    entities.push(ref);
    relations.push({ name: "registered with", from: root, to: ref });
  }
  if (registrant) {
    const ref = { superType: "OBSERVABLE", type: "DOMAIN_REGISTRANT", name: registrant };
    entities.push(ref);
    relations.push({ name: "registered by", from: root, to: ref });
  }
  return { entities, relations, events: [] };
}

function networkFragment(o: RdapObject, subject: Subject): Fragment {
  const owner = orgOf(withRole(o, "registrant")[0]);
  const range = o.startAddress && o.endAddress ? `${o.startAddress} - ${o.endAddress}` : undefined;
  const attributes = facts({
    network_name: o.name,
    network_handle: o.handle,
    network_range: range,
    network_type: o.type,
    network_country: o.country,
    network_owner: owner,
    network_registered: eventDate(o, "registration"),
    network_updated: eventDate(o, "last changed"),
  });
  return { entities: [{ ...rootRef(subject), attributes }], relations: [], events: [] };
}

export function normalizeRdap(raw: unknown, subject: Subject): Fragment {
  const o = answerObject<RdapObject>(raw, "the RDAP server");
  if (o.objectClassName === "domain") return domainFragment(o, subject);
  if (o.objectClassName === "ip network") return networkFragment(o, subject);
  throw new VendorError("bad_response", `not an RDAP domain or IP network (${String(o.objectClassName)})`);
}
