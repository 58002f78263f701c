/**
 * The offline IP database's answer → graph: the address's ASN, organisation, range and country as
 * root attributes (named as VirusTotal names them, so the card reads one fact), and the ASN entity
 * it `belongs to`. The answer is this connector's own object (index.ts), not a vendor's.
 */
import { answerObject } from "../answer.ts";
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface IpAnswer {
  asn?: number;
  organisation?: string;
  range?: string;
  country?: string;
  data_date?: string | null;
}

export function normalizeIplocation(raw: unknown, subject: Subject): Fragment {
  const r = answerObject<IpAnswer>(raw, "the IP database");
  const asn = typeof r.asn === "number" && Number.isInteger(r.asn) && r.asn > 0 ? `AS${r.asn}` : undefined;
  const country = typeof r.country === "string" && /^[A-Z]{2}$/.test(r.country) ? r.country : undefined;
  if (!asn && !country) throw new VendorError("bad_response", "neither an ASN nor a country");
  const organisation = typeof r.organisation === "string" ? r.organisation : undefined;
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        asn,
        as_owner: organisation,
        country,
        ip_range: typeof r.range === "string" ? r.range : undefined,
        iplocation_data_date: typeof r.data_date === "string" ? r.data_date : undefined,
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  if (asn) {
    const ref = { superType: "OBSERVABLE", type: "ASN", name: asn };
    entities.push({ ...ref, attributes: facts({ operator: organisation }) });
    relations.push({ name: "belongs to", from: root, to: ref });
  }
  return { entities, relations, events: [] };
}
