/**
 * Why no vendor spoke about a subject (`nobody_asked` in answers): no connector looks its type up,
 * none that does is configured, or its TLP/PAP keeps it from every one that is. An answer whose
 * sources hold no vendor's word says which, so that "nobody was asked" never reads as "nothing known".
 */
import { supports } from "../connectors/registry.ts";
import type { Connector } from "../connectors/types.ts";
import type { Subject } from "../model/graph.ts";
import { isUsable } from "./fanout.ts";
import type { Marks } from "./markings.ts";
import type { SourceOutcome } from "./sources.ts";

export type NobodyAskedReason = "type_not_supported" | "no_vendor_configured" | "markings";

export interface NobodyAsked {
  reason: NobodyAskedReason;
  detail: string;
}

/** The vendors a subject could reach, step by step: supporting its type, configured, allowed by its marks. */
export interface Reach {
  supporting: Connector[];
  usable: Connector[];
  allowed: Connector[];
  marks: Marks;
}

export function reachOf(
  connectors: Connector[],
  subject: Subject,
  configured: ReadonlySet<string>,
): Pick<Reach, "supporting" | "usable"> {
  const supporting = connectors.filter((c) => supports(c, subject));
  return { supporting, usable: supporting.filter((c) => isUsable(c, configured)) };
}

/** Why this reach asks nobody, or null when some vendor may be asked. */
export function whyNobody(reach: Reach): NobodyAsked | null {
  if (reach.allowed.length > 0) return null;
  if (reach.supporting.length === 0)
    return { reason: "type_not_supported", detail: "No enabled connector looks up this type." };
  if (reach.usable.length === 0)
    return {
      reason: "no_vendor_configured",
      detail: `No connector that looks up this type has credentials (${ids(reach.supporting)}).`,
    };
  return {
    reason: "markings",
    detail: `TLP:${reach.marks.tlp} / PAP:${reach.marks.pap} keep this subject from every configured vendor (${ids(reach.usable)}).`,
  };
}

/**
 * `nobody_asked` of an answer: null when some vendor's word (an answer, "not found", an error) is
 * among its sources; otherwise why nobody was asked: from the current reach, or, when some vendor
 * may be asked now (and is, behind this answer), from what kept the earlier asks from every vendor.
 */
export function nobodyAsked(sources: Record<string, SourceOutcome>, reach: Reach): NobodyAsked | null {
  const outcomes = Object.values(sources);
  if (outcomes.some((o) => o.status !== "skipped")) return null;
  const now = whyNobody(reach);
  if (now) return now;
  if (outcomes.length > 0)
    return {
      reason: "markings",
      detail:
        "Every earlier ask was kept from every vendor by its TLP/PAP; the vendors allowed now are being asked.",
    };
  return {
    reason: "no_vendor_configured",
    detail:
      "No vendor could be asked when this subject was looked up; the vendors configured now are being asked.",
  };
}

const ids = (connectors: Connector[]) => connectors.map((c) => c.id).join(", ");
