/**
 * The Mobile Verification Toolkit's indicator files read as MVT reads them: `indicators.yaml` lists
 * collections (a GitHub file, or a `download_url`), each a STIX 2.1 bundle whose indicators are tied
 * to a malware (or a report) by `indicates` relationships. Indicators become feed entries typed by
 * the taxonomy; a pattern naming something the taxonomy has no type for is skipped.
 */
import { parse as parseYaml } from "yaml";
import { type FeedEntry, MAX_FEED_VALUE } from "../feed.ts";

/** One collection of the index, with where its bundle is downloaded from. */
export interface MvtCollection {
  /** The feed id: `mvt:` and the bundle's file name. */
  id: string;
  name: string;
  url: string;
  sources: string[];
  references: string[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);
const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** The collections an `indicators.yaml` lists; `filesBaseUrl` replaces the GitHub raw files' origin. */
export function parseMvtIndex(yaml: string, filesBaseUrl: string): MvtCollection[] {
  const doc = parseYaml(yaml) as { indicators?: unknown } | null;
  if (!doc || typeof doc !== "object" || !Array.isArray(doc.indicators))
    throw new Error("not an MVT indicators index (no `indicators` list)");
  const out: MvtCollection[] = [];
  const base = filesBaseUrl.replace(/\/+$/, "");
  for (const item of doc.indicators as Array<Record<string, unknown>>) {
    if (!item || typeof item !== "object") continue;
    const gh = (item.github ?? {}) as Record<string, unknown>;
    const url =
      item.type === "github"
        ? [text(gh.owner), text(gh.repo), text(gh.branch) || "main", text(gh.path)].every(Boolean)
          ? `${base}/${text(gh.owner)}/${text(gh.repo)}/${text(gh.branch) || "main"}/${text(gh.path)}`
          : ""
        : text(item.download_url);
    if (!/^https?:\/\//.test(url)) continue;
    const file = url.split("/").pop() ?? url;
    out.push({
      id: `mvt:${file}`.slice(0, 200),
      name: text(item.name) || file,
      url,
      sources: strings(item.sources),
      references: strings(item.references),
    });
  }
  return out;
}

/** STIX object paths MVT matches, and the taxonomy type each gives (lower-cased values where case means nothing). */
const KINDS: Record<string, { kind: string; lower: boolean }> = {
  "domain-name:value": { kind: "DOMAIN", lower: true },
  "ipv4-addr:value": { kind: "IPV4", lower: false },
  "ipv6-addr:value": { kind: "IPV6", lower: true },
  "url:value": { kind: "URL", lower: false },
  "email-addr:value": { kind: "EMAIL", lower: true },
  "file:hashes.md5": { kind: "MD5", lower: true },
  "file:hashes.'md5'": { kind: "MD5", lower: true },
  "file:hashes.sha1": { kind: "SHA1", lower: true },
  "file:hashes.'sha-1'": { kind: "SHA1", lower: true },
  "file:hashes.sha256": { kind: "SHA256", lower: true },
  "file:hashes.'sha-256'": { kind: "SHA256", lower: true },
  "app:id": { kind: "NAMESPACE", lower: false },
  "process:name": { kind: "PROCESS", lower: false },
};

/** Comparisons `path = 'value'` in a STIX pattern (`[a:b = 'x'] OR [c:d = 'y']` gives both). */
export function patternValues(pattern: string): Array<{ kind: string; value: string }> {
  const out: Array<{ kind: string; value: string }> = [];
  for (const m of pattern.matchAll(/([a-z0-9-]+:[a-z0-9_.'-]+)\s*=\s*'((?:[^'\\]|\\.)*)'/gi)) {
    const spec = KINDS[m[1]!.toLowerCase()];
    const raw = m[2]!.replace(/\\(.)/g, "$1").trim();
    if (!spec || !raw || raw.length > MAX_FEED_VALUE) continue;
    out.push({ kind: spec.kind, value: spec.lower ? raw.toLowerCase() : raw });
  }
  return out;
}

interface StixObject {
  type?: string;
  id?: string;
  name?: string;
  description?: string;
  pattern?: string;
  source_ref?: string;
  target_ref?: string;
  relationship_type?: string;
  object_refs?: string[];
  external_references?: Array<{ url?: string }>;
}

const urlsOf = (o: StixObject | undefined) =>
  (o?.external_references ?? []).map((r) => r?.url).filter((u): u is string => typeof u === "string");

/** The threat (malware or report) each indicator of a bundle stands for, by indicator id. */
function threatsByIndicator(objects: StixObject[]): Map<string, StixObject> {
  const byId = new Map(objects.filter((o) => o.id).map((o) => [o.id!, o]));
  const out = new Map<string, StixObject>();
  for (const o of objects) {
    if (o.type === "report") for (const ref of o.object_refs ?? []) if (!out.has(ref)) out.set(ref, o);
    if (o.type === "relationship" && o.relationship_type === "indicates" && o.source_ref && o.target_ref) {
      const target = byId.get(o.target_ref);
      if (target?.type === "malware" && !out.has(o.source_ref)) out.set(o.source_ref, target);
    }
  }
  return out;
}

/** A bundle's indicators as feed entries: the threat, its references, the collection and its sources. */
export function parseMvtBundle(json: string, collection: MvtCollection): FeedEntry[] {
  const bundle = JSON.parse(json) as { type?: string; objects?: unknown } | null;
  if (bundle?.type !== "bundle" || !Array.isArray(bundle.objects)) throw new Error("not a STIX 2.1 bundle");
  const objects = (bundle.objects as StixObject[]).filter((o) => o && typeof o === "object");
  const threats = threatsByIndicator(objects);
  const entries: FeedEntry[] = [];
  for (const o of objects) {
    if (o.type !== "indicator" || typeof o.pattern !== "string") continue;
    const threat = threats.get(o.id ?? "");
    const info = {
      threat: threat?.name ?? collection.name,
      collection: collection.name,
      sources: collection.sources,
      references: [...new Set([...urlsOf(o), ...urlsOf(threat), ...collection.references])],
    };
    for (const v of patternValues(o.pattern)) entries.push({ ...v, info });
  }
  return entries;
}
