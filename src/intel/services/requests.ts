/**
 * Asking about a subject, for every door: the request protocol's outcome (stored data, a request
 * under way, every vendor failed) turned into one answer — status, headers and body — that the API
 * and the panel send as they are. Only the 201 body differs by door (Threatr's request shape for
 * the API, the vendors being asked for a person).
 */
import type { Chunks } from "../../common/chunks.ts";
import { badRequest, HttpError, notFound } from "../../common/errors.ts";
import type { Connector } from "../connectors/types.ts";
import { superTypeJson, typeJson } from "../domain/document.ts";
import { stickyMarks } from "../domain/markings.ts";
import { type NobodyAsked, nobodyAsked, reachOf, whyNobody } from "../domain/nobody-asked.ts";
import { askedIds, vendorErrors } from "../domain/requests.ts";
import { type SourceOutcome, sourceViews } from "../domain/sources.ts";
import type { Subject } from "../model/graph.ts";
import { fromStored, MARKINGS, type Marking, parseMarking } from "../model/markings.ts";
import { configuredVendors } from "../store/credentials.ts";
import { entityMarks } from "../store/graph.ts";
import type { ReadView } from "../store/read-cache.ts";
import type { RequestsTable } from "../store/schema.ts";
import type { IntelServices } from "./index.ts";

export type { RequestsTable as RequestRecord };

export type RequestAnswer =
  /** Stored data: the result document, already serialised (cached by graph version), as slices. */
  | { status: 200; json: Chunks }
  /** A request is under way: ask again after `retryAfterSeconds`. */
  | { status: 201; request: RequestsTable; location: string; retryAfterSeconds: number; asking: string[] };

type Services = Pick<IntelServices, "requests" | "connectors" | "store"> & {
  config: Pick<IntelServices["config"], "retryAfterSeconds">;
};

/** The 502 of the protocol: every vendor failed; a new lookup is tried after the cool-down. */
export class VendorsFailed extends HttpError {
  constructor(request: RequestsTable, errors: Record<string, string>) {
    super(
      502,
      "vendors_failed",
      "Every vendor failed for this subject; a new lookup is tried after a cool-down.",
      {
        errors,
        request: request.id,
      },
    );
  }
}

/**
 * A `force` that names vendors must name enabled connectors that can look this subject up (400
 * `unknown_vendor` / `vendor_not_applicable` otherwise): a typo never silently refreshes nothing.
 */
function checkForcedVendors(names: readonly string[], usable: Connector[], all: Connector[]): void {
  const unknown = names.filter((n) => !all.some((c) => c.id === n));
  if (unknown.length > 0)
    throw badRequest(
      "unknown_vendor",
      `force names unknown vendors: ${unknown.join(", ")} (known: ${all.map((c) => c.id).join(", ")}).`,
    );
  const inapplicable = names.filter((n) => !usable.some((c) => c.id === n));
  if (inapplicable.length > 0)
    throw badRequest(
      "vendor_not_applicable",
      `force names vendors that cannot look this subject up (type not supported, or no credentials): ${inapplicable.join(", ")}.`,
    );
}

/** A TLP or PAP level as a client wrote it (400 `invalid_tlp` / `invalid_pap` when it is none). */
export function checkedMarking(kind: "tlp" | "pap", raw: string | undefined): Marking | undefined {
  if (raw === undefined) return undefined;
  const level = parseMarking(raw);
  if (!level)
    throw badRequest(
      `invalid_${kind}`,
      `${kind} must be one of ${MARKINGS.join(", ")} (WHITE is read as CLEAR), not "${raw.slice(0, 32)}".`,
    );
  return level;
}

/** Submits (or joins) a request for `subject`; throws VendorsFailed when every vendor failed. */
export async function askAbout(
  services: Services,
  subject: Subject,
  opts: { force: boolean | readonly string[]; depth: number; tlp?: string; pap?: string; view?: ReadView },
): Promise<RequestAnswer> {
  const tlp = checkedMarking("tlp", opts.tlp);
  const pap = checkedMarking("pap", opts.pap);
  const { force, depth, view } = opts;
  // Read here only when `force` names vendors (to check them); the plan reuses what is read.
  let reach: ReturnType<typeof reachOf> | undefined;
  if (typeof force !== "boolean") {
    reach = reachOf(services.connectors, subject, await configuredVendors(services.store.db));
    checkForcedVendors(force, reach.usable, services.connectors);
  }
  const outcome = await services.requests.submit(subject, { force, depth, tlp, pap, view, reach });
  if (outcome.kind === "done") return { status: 200, json: outcome.json };
  if (outcome.kind === "failed") throw new VendorsFailed(outcome.request, outcome.errors);
  return {
    status: 201,
    request: outcome.request,
    location: `/api/request/${outcome.request.id}/`,
    retryAfterSeconds: services.config.retryAfterSeconds,
    asking: outcome.asking,
  };
}

/** Threatr's request shape (its RequestSerializer): super type and type as the same objects as an entity's. */
export function requestSummary(r: RequestsTable) {
  return {
    id: r.id,
    value: r.value,
    super_type: superTypeJson(r.super_type),
    type: typeJson(r.super_type, r.type),
    status: r.status,
    created_at: r.created_at,
  };
}

/**
 * `GET /api/request/<id>/`: a request's status, the vendors it asks, whether it is a background
 * refresh, its marks, each vendor's outcome and `nobody_asked` (404 when there is no such request).
 */
export async function requestStatus(
  services: Pick<Services, "requests" | "connectors" | "store">,
  id: string,
) {
  const r = await services.requests.getRequest(id);
  if (!r) throw notFound(`No request ${id}.`);
  const asked = askedIds(r);
  const outcomes = JSON.parse(r.vendors) as Record<string, SourceOutcome>;
  return {
    ...requestSummary(r),
    force: r.force === 1,
    started_at: r.started_at,
    finished_at: r.finished_at,
    asked,
    background: r.background === 1,
    tlp: r.tlp ?? null,
    pap: r.pap ?? null,
    sources: sourceViews(outcomes, Date.now(), new Set(asked ?? Object.keys(outcomes))),
    errors: vendorErrors(r),
    nobody_asked: await requestNobodyAsked(services, r),
  };
}

/**
 * A request's `nobody_asked` (GET /api/request/<id>/): while it runs, why it asks nobody (its vendor
 * set is empty); once finished, why no vendor spoke (every one skipped); null otherwise.
 */
export async function requestNobodyAsked(
  services: Pick<Services, "connectors" | "store">,
  r: RequestsTable,
): Promise<NobodyAsked | null> {
  const ids = askedIds(r);
  const running = r.status === "ENQUEUED" || r.status === "PROCESSING" || r.status === "CREATED";
  if (running && (ids === null || ids.length > 0)) return null;
  const outcomes = JSON.parse(r.vendors) as Record<string, SourceOutcome>;
  // A vendor spoke: nothing to explain, nothing to read.
  if (!running && Object.values(outcomes).some((o) => o.status !== "skipped")) return null;
  const { db } = services.store;
  const subject: Subject = { superType: r.super_type, type: r.type, value: r.value };
  const reach = reachOf(services.connectors, subject, await configuredVendors(db));
  const stored = await entityMarks(db, { superType: r.super_type, type: r.type, name: r.value });
  const asked = { tlp: fromStored(r.tlp ?? "CLEAR"), pap: fromStored(r.pap ?? "CLEAR") };
  const marks = stickyMarks(asked, stored && { tlp: fromStored(stored.tlp), pap: fromStored(stored.pap) });
  const whyNot = { ...reach, allowed: [], marks };
  if (running) return whyNobody(whyNot);
  return nobodyAsked(outcomes, whyNot);
}
