/**
 * Colander's Threatr client, replayed: the requests its code sends (core/threatr.py and the
 * investigate view use python-requests with `Authorization: Token …` and `json=` bodies), and the
 * reads its templates make, with Python's semantics where a wrong type would crash the page.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import type { Json } from "../helpers/json.ts";

const schema = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "schemas", "threatr.schema.json"), "utf8"),
);
const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addSchema(schema);

/** Throws with every violation when `data` does not match `threatr#/definitions/<name>`. */
export function assertThreatrShape(name: string, data: unknown): void {
  const validate = ajv.getSchema(`threatr#/definitions/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  if (!validate(data))
    throw new Error(`${name} does not match Threatr's shape: ${ajv.errorsText(validate.errors)}`);
}

/** The headers python-requests sends by default, plus Colander's token. */
export function colanderHeaders(key: string): Record<string, string> {
  return {
    "user-agent": "python-requests/2.32.3",
    "accept-encoding": "gzip, deflate",
    accept: "*/*",
    connection: "keep-alive",
    authorization: `Token ${key}`,
  };
}

/** `requests.post(url, json=data)`: json.dumps with its defaults (", " and ": " separators, ASCII only). */
export function pythonJsonBody(data: unknown): string {
  if (Array.isArray(data)) return `[${data.map(pythonJsonBody).join(", ")}]`;
  if (data !== null && typeof data === "object")
    return `{${Object.entries(data)
      .map(([k, v]) => `${pythonJsonBody(k)}: ${pythonJsonBody(v)}`)
      .join(", ")}}`;
  return JSON.stringify(data).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export class ColanderThreatrClient {
  private readonly url: string;
  private readonly key: string;
  constructor(url: string, key: string) {
    this.url = url;
    this.key = key;
  }

  private headers(): Record<string, string> {
    return colanderHeaders(this.key);
  }

  /** is_correctly_configured / is_online: `HEAD /api/schema/`, 200 means configured. */
  async isCorrectlyConfigured(): Promise<boolean> {
    const res = await fetch(`${this.url}/api/schema/`, { method: "HEAD", headers: this.headers() });
    return res.status === 200;
  }

  /** get_status: `{configured: true}` updated with `/api/status/now/` when it answers < 300. */
  async getStatus(): Promise<Json> {
    const res = await fetch(`${this.url}/api/status/now/`, { headers: this.headers() });
    return res.status < 300 ? { configured: true, ...((await res.json()) as object) } : { configured: true };
  }

  async get(pathname: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.url}${pathname}`, { headers: this.headers() });
    return { status: res.status, body: await res.json() };
  }

  /** send_request: 201 → wait (results []), 200 → the document, anything else → nothing. */
  async sendRequest(data: Json): Promise<{ status: number; results: Json; wait: boolean }> {
    const res = await fetch(`${this.url}/api/request/`, {
      method: "POST",
      headers: { ...this.headers(), "content-type": "application/json" },
      body: pythonJsonBody(data),
    });
    const body = await res.json();
    if (res.status === 201) return { status: 201, results: [], wait: true };
    if (res.status === 200) return { status: 200, results: body, wait: false };
    return { status: res.status, results: [], wait: false };
  }
}

/** Python's int() on a JSON value: numbers truncate, booleans are 0/1, integer text parses; else TypeError/ValueError. */
function pythonInt(value: unknown): number {
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) return Number(value);
  throw new TypeError(`int() cannot take ${JSON.stringify(value)}`);
}

/** Django's `{{ value }}` of a JSON value, as Python prints it. */
const pyStr = (v: unknown) => (typeof v === "boolean" ? (v ? "True" : "False") : String(v));

/** colander_tags.humanize_duration: `"{:0>8}".format(str(timedelta(seconds=int(x))))`. */
export function humanizeDuration(value: unknown): string {
  const seconds = pythonInt(value);
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  const hms = `${Math.floor(rest / 3600)}:${String(Math.floor((rest % 3600) / 60)).padStart(2, "0")}:${String(rest % 60).padStart(2, "0")}`;
  const text = days ? `${days} day${Math.abs(days) === 1 ? "" : "s"}, ${hms}` : hms;
  return text.padStart(8, "0");
}

/**
 * What pages/status/base.html and module_row.html compute from get_status(). Django's `{% if %}`
 * swallows a failed comparison (it is just false), a filter's exception is a 500: humanize_duration
 * calls int() on `uptime`, so only a number (or integer text) renders.
 */
export function renderStatusPage(status: Json): string[] {
  const lines: string[] = [`version ${String(status.git_commit_hash).slice(0, 7)}`];
  for (const key of ["cached_entities", "cached_relations", "cached_events"])
    lines.push(`${status[key]} ${key}`);
  for (const module of status.available_modules) {
    const count =
      typeof module.configured === "number" || typeof module.configured === "boolean"
        ? Number(module.configured)
        : 0;
    const plural = module.configured === 1 ? "" : "s";
    lines.push(
      `${count > 0 ? "on" : "off"} ${module.vendor} ${module.id} ${pyStr(module.configured)} API key${plural} configured`,
    );
  }
  for (const worker of status.workers) {
    const colour = worker.status === "Idle" || worker.status === "Working" ? "green" : "other";
    lines.push(
      `${colour} ${worker.id} ${worker.status} ${humanizeDuration(worker.uptime)} ${worker.enqueued_tasks} ${worker.available_results}`,
    );
  }
  return lines;
}

/** InvestigateSearchForm: choices built from types/supported, then clean() — null when Colander accepts the pair. */
export function investigateFormError(supported: Json, superType: string, type: string): string | null {
  const superChoices = supported.super_types.map((t: { name: string }) => t.name.toUpperCase());
  const typeChoices = Object.values(supported.types as Record<string, Array<{ id: string }>>).flatMap((m) =>
    m.map((t) => t.id.toUpperCase()),
  );
  if (!superChoices.includes(superType)) return "Select a valid choice (super type)";
  if (!typeChoices.includes(type)) return "Select a valid choice (type)";
  if (!(superType in supported.types)) return "Invalid model selected";
  if (!supported.types[superType].some((t: { id: string }) => t.id === type))
    return "Invalid types combination";
  return null;
}

/**
 * investigate_search_view after a 200: what it reads from the document (root_entity.super_type,
 * entities[].super_type / type.name / id, events) to build its tabs, and the pivot form of every
 * importable entity (templates post type/value/super_type from entity.type.short_name, name,
 * super_type.short_name).
 */
export function investigateOrdering(results: Json) {
  const root = results.root_entity;
  const types: Record<string, { count: number; entities: Json[] }> = {
    [root.super_type.short_name]: { count: 1, entities: [root] },
  };
  let externalDoc = 0;
  const byId: Record<string, Json> = {};
  for (const entity of results.entities) {
    const st = entity.super_type.short_name;
    if (st === "EXT_DOC") {
      externalDoc++;
      continue;
    }
    types[st] ??= { count: 0, entities: [] };
    types[st].count++;
    types[st].entities.push(entity);
    byId[entity.id] = entity;
  }
  for (const t of Object.values(types))
    t.entities.sort((a, b) => String(a.type.name).localeCompare(b.type.name));
  const pivots = Object.values(byId)
    .filter((e) => ["OBSERVABLE", "DEVICE", "THREAT", "ACTOR"].includes(e.super_type.short_name))
    .map((e) => ({ super_type: e.super_type.short_name, type: e.type.short_name, value: e.name }));
  return { total: results.entities.length, events: results.events.length, externalDoc, types, byId, pivots };
}
