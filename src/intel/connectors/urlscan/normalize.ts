/**
 * urlscan.io search results → graph: each scan a HIT event, with the page's IP, ASN and final URL.
 */
import { answerObject, objectsIn } from "../answer.ts";
import {
  type EntityDraft,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "../types.ts";

interface UrlscanResult {
  task?: { time?: string; url?: string; uuid?: string };
  page?: {
    ip?: string;
    asn?: string;
    asnname?: string;
    country?: string;
    url?: string;
    title?: string;
    server?: string;
    status?: string;
  };
  result?: string;
}

export function normalizeUrlscan(raw: unknown, subject: Subject): Fragment {
  const answer = answerObject<{ results?: unknown; total?: number }>(raw, "urlscan.io");
  const results = objectsIn<UrlscanResult>(answer.results).slice(0, 50);
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    { ...root, attributes: { urlscan_scans: String(answer.total ?? results.length) } },
  ];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const r of results) {
    const when = r.task?.time;
    if (when) {
      events.push({
        type: "HIT",
        name: "Scanned by urlscan.io",
        firstSeen: when,
        lastSeen: when,
        involved: root,
        attributes: {
          ...(r.page?.title ? { title: r.page.title } : {}),
          ...(r.result ? { result: r.result } : {}),
          ...(r.page?.status ? { http_status: r.page.status } : {}),
        },
      });
    }
    const ip = r.page?.ip;
    if (ip && subject.type !== "IPV4" && subject.type !== "IPV6") {
      const ipRef = { superType: "OBSERVABLE", type: ip.includes(":") ? "IPV6" : "IPV4", name: ip };
      entities.push({
        ...ipRef,
        attributes: {
          ...(r.page?.country ? { country: r.page.country } : {}),
          ...(r.page?.asn ? { asn: r.page.asn } : {}),
        },
      });
      relations.push({ name: "resolves", from: root, to: ipRef });
    }
    if (r.page?.asn && /^AS\d+$/.test(r.page.asn)) {
      const asn = { superType: "OBSERVABLE", type: "ASN", name: r.page.asn };
      entities.push({ ...asn, attributes: r.page.asnname ? { operator: r.page.asnname } : {} });
    }
  }
  return { entities, relations, events };
}
