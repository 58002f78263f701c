/**
 * GreyNoise's community answer → the address's noise, RIOT and classification facts, and an
 * ATTACK event when it was seen scanning (the answer carries only its last day, used for both ends).
 */
import { type EventDraft, type Fragment, rootRef, type Subject } from "../types.ts";

interface GreyNoiseAnswer {
  noise?: boolean;
  riot?: boolean;
  classification?: string;
  name?: string;
  link?: string;
  last_seen?: string;
}

export function normalizeGreyNoise(raw: unknown, subject: Subject): Fragment {
  const r = (raw ?? {}) as GreyNoiseAnswer;
  const attributes: Record<string, string> = {
    greynoise_noise: String(r.noise ?? false),
    greynoise_riot: String(r.riot ?? false),
  };
  if (r.classification) {
    attributes.greynoise_classification = r.classification;
    attributes.is_malicious = String(r.classification === "malicious");
  }
  if (r.name && r.name !== "unknown") attributes.operator = r.name;
  const events: EventDraft[] = [];
  if (r.noise && r.last_seen) {
    const seen = `${r.last_seen}T00:00:00Z`;
    events.push({
      type: "ATTACK",
      name: "Seen scanning the internet (GreyNoise)",
      firstSeen: seen,
      lastSeen: seen,
      involved: rootRef(subject),
    });
  }
  return {
    entities: [{ ...rootRef(subject), attributes, ...(r.link ? { sourceUrl: r.link } : {}) }],
    relations: [],
    events,
  };
}
