/**
 * `--intel`: a file's indicators asked of a Loupe intel service with its request protocol
 * (docs/api.md): POST `/api/request/`, repeated while it answers 201 (after its Retry-After),
 * until 200 (the result document), an error, or the time limit. Only types some vendor looks up
 * are sent, at most `max` of them; a few at a time.
 */
import pLimit from "p-limit";
import type { Indicator, IntelVerdict } from "./report.ts";

const PARALLEL = 4;
const MAX_WAIT_MS = 5_000;

export interface IntelTarget {
  url: string;
  apiKey: string;
  max: number;
  timeoutMs: number;
}

/** Intel cannot be used at all (unreachable, key refused): every file's intel part says so. */
export class IntelUnavailable extends Error {
  override name = "IntelUnavailable";
}

async function call(target: IntelTarget, pathname: string, init: RequestInit, signal: AbortSignal) {
  let res: Response;
  try {
    res = await fetch(`${target.url}${pathname}`, {
      ...init,
      signal,
      headers: { authorization: `Token ${target.apiKey}`, "content-type": "application/json" },
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new IntelUnavailable(`cannot reach the intel service at ${target.url}: ${(err as Error).message}`);
  }
  if (res.status === 401 || res.status === 403) {
    await res.arrayBuffer();
    throw new IntelUnavailable(`the intel service refused the API key (HTTP ${res.status})`);
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Kept empty: the status says enough.
  }
  return { status: res.status, retryAfter: Number(res.headers.get("retry-after")), body };
}

/** The short names of the types some enabled vendor looks up, by super type. */
export async function supportedTypes(target: IntelTarget, signal: AbortSignal): Promise<Set<string>> {
  const { status, body } = await call(target, "/api/types/supported/", { method: "GET" }, signal);
  if (status !== 200) throw new IntelUnavailable(`the intel service answered ${status} for its types`);
  const types = (body.types ?? {}) as Record<string, { id: string }[]>;
  return new Set(Object.entries(types).flatMap(([sup, list]) => list.map((t) => `${sup}/${t.id}`)));
}

function verdictOf(i: Indicator, doc: Record<string, unknown>): IntelVerdict {
  const sources = (doc.sources ?? {}) as Record<string, { status?: string; error?: string | null }>;
  const vendors = Object.fromEntries(
    Object.entries(sources).map(([v, s]) => [v, { status: s.status ?? "unknown", error: s.error ?? null }]),
  );
  const root = (doc.root_entity ?? {}) as { attributes?: Record<string, unknown> };
  const events = Array.isArray(doc.events) ? doc.events.length : 0;
  const nobody = doc.nobody_asked as IntelVerdict["nobody_asked"];
  return {
    nobody_asked: nobody && typeof nobody.detail === "string" ? nobody : null,
    type: i.type,
    value: i.value,
    status: "found",
    vendors,
    attributes: root.attributes ?? {},
    events,
    error: null,
  };
}

function problem(i: Indicator, status: IntelVerdict["status"], error: string | null): IntelVerdict {
  return { type: i.type, value: i.value, status, vendors: {}, attributes: {}, events: 0, error };
}

async function ask(target: IntelTarget, i: Indicator, signal: AbortSignal): Promise<IntelVerdict> {
  const body = JSON.stringify({ super_type: i.super_type, type: i.type, value: i.value });
  for (;;) {
    const res = await call(target, "/api/request/", { method: "POST", body }, signal);
    if (res.status === 200) return verdictOf(i, res.body);
    if (res.status !== 201 && res.status !== 429) {
      const detail = typeof res.body.detail === "string" ? res.body.detail : `HTTP ${res.status}`;
      return problem(i, "error", detail);
    }
    const waitMs = Number.isFinite(res.retryAfter) && res.retryAfter > 0 ? res.retryAfter * 1000 : 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, MAX_WAIT_MS)));
    if (signal.aborted) return problem(i, "pending", "no answer within the time limit");
  }
}

/** Verdicts for the first `max` indicators intel can look up; the others are left out. */
export async function intelVerdicts(target: IntelTarget, indicators: Indicator[]): Promise<IntelVerdict[]> {
  const signal = AbortSignal.timeout(target.timeoutMs);
  const supported = await supportedTypes(target, signal).catch((err: unknown) => {
    if (signal.aborted)
      throw new IntelUnavailable(`the intel service did not answer within ${target.timeoutMs} ms`);
    throw err;
  });
  const chosen = indicators.filter((i) => supported.has(`${i.super_type}/${i.type}`)).slice(0, target.max);
  const slot = pLimit(PARALLEL);
  return Promise.all(
    chosen.map((i) =>
      slot(async () => {
        if (signal.aborted) return problem(i, "pending", "no answer within the time limit");
        try {
          return await ask(target, i, signal);
        } catch (err) {
          if (err instanceof IntelUnavailable) throw err;
          if (signal.aborted) return problem(i, "pending", "no answer within the time limit");
          throw err;
        }
      }),
    ),
  );
}
