/**
 * One file's report, read from the `/analyzer/all` answer: the verdict first (the service's level
 * and reasons over the tree, antivirus, YARA, indicators), then what the file is and what is inside
 * it. `--json` prints it as is; the text report renders it.
 */

export interface Indicator {
  super_type: string;
  type: string;
  kind: string;
  value: string;
  occurrences?: number;
}

export interface AntivirusVerdict {
  status: "infected" | "clean" | "failed" | "not_run";
  signature: string | null;
  error: string | null;
}

export interface IntelVerdict {
  type: string;
  value: string;
  /** `found`: the lookup finished; `pending`: still running at the time limit; `error`: refused or failed. */
  status: "found" | "pending" | "error";
  /** Per vendor: `ok`, `not_found` or `error` (with its message). */
  vendors: Record<string, { status: string; error: string | null }>;
  /** Attributes of the subject's entity (`is_malicious`, `vt_score`…), when found. */
  attributes: Record<string, unknown>;
  events: number;
  error: string | null;
  /** Why no vendor was asked (the answer's `nobody_asked`): then "nothing known" is not what it means. */
  nobody_asked?: { reason: string; detail: string } | null;
}

export interface FileReport {
  file: string;
  name: string;
  size: number | null;
  /** False when the file could not be analysed at all (`error` says why). */
  analysed: boolean;
  error: { code: string; detail: string } | null;
  verdict: {
    /** The service's verdict over the file and its children: malicious, suspicious, clean, incomplete. */
    level: string | null;
    /** Why, per node path (`invoice.zip › eicar.com`), the worst first. */
    reasons: Reason[];
    /** True when the antivirus detected something. */
    malicious: boolean;
    antivirus: AntivirusVerdict;
    /** Rules that matched; null when no rules were given. */
    yara_matches: number | null;
    indicators: number;
  };
  type: string | null;
  hashes: Record<string, string | null>;
  /** The file and every child taken out of it, root first (the extractor's `extra.tree.nodes`). */
  tree: TreeNode[];
  indicators: Indicator[];
  yara: { rule: string; namespace: string; tags: string[] }[];
  /** Processors that failed, with their short code and message. */
  failures: { processor: string; error_short: string | null; error: string | null }[];
  thumbnail: string | null;
  intel: IntelVerdict[] | null;
  /** The service's whole answer (`/analyzer/all`). */
  result: AllAnswer | null;
}

export interface Reason {
  path: string;
  processor: string;
  detail: string;
}

export interface TreeNode {
  path: string;
  name: string;
  depth: number;
  size: number | null;
  type: string | null;
  status: string;
  reason?: string;
}

export interface Entry {
  success: boolean;
  metadata: unknown;
  error: string | null;
  error_short: string | null;
  analysis: unknown;
}

export interface AllAnswer {
  success: boolean;
  content: string | null;
  verdict?: { level: string; reasons: Reason[] };
  processors: Record<string, Entry>;
}

/** A report for a file that was never analysed. */
export function failedReport(
  file: string,
  name: string,
  size: number | null,
  code: string,
  detail: string,
): FileReport {
  return {
    file,
    name,
    size,
    analysed: false,
    error: { code, detail },
    verdict: {
      level: null,
      reasons: [],
      malicious: false,
      antivirus: { status: "not_run", signature: null, error: null },
      yara_matches: null,
      indicators: 0,
    },
    type: null,
    hashes: {},
    tree: [],
    indicators: [],
    yara: [],
    failures: [],
    thumbnail: null,
    intel: null,
    result: null,
  };
}

function antivirusOf(entry: Entry | undefined): AntivirusVerdict {
  if (!entry) return { status: "not_run", signature: null, error: null };
  if (!entry.success) return { status: "failed", signature: null, error: entry.error };
  const a = entry.analysis as { infected?: boolean; description?: string | null };
  return a.infected
    ? { status: "infected", signature: a.description ?? null, error: null }
    : { status: "clean", signature: null, error: null };
}

/** Type and hashes from the extractor; the type from iocs' metadata when the extractor did not run. */
function extractorFacts(
  entry: Entry | undefined,
  iocs: Entry | undefined,
): { type: string | null; hashes: Record<string, string | null> } {
  if (!entry?.success)
    return { type: (iocs?.metadata as { type?: string } | null)?.type ?? null, hashes: {} };
  const a = entry.analysis as { type?: string; extra?: { hashes?: Record<string, string | null> } };
  return { type: a.type ?? null, hashes: a.extra?.hashes ?? {} };
}

function treeOf(entry: Entry | undefined): TreeNode[] {
  if (!entry?.success) return [];
  const nodes = (entry.analysis as { extra?: { tree?: { nodes?: TreeNode[] } } }).extra?.tree?.nodes ?? [];
  return nodes.map((n) => ({
    path: n.path,
    name: n.name,
    depth: n.depth,
    size: n.size,
    type: n.type,
    status: n.status,
    ...(n.reason ? { reason: n.reason } : {}),
  }));
}

function indicatorsOf(entry: Entry | undefined): Indicator[] {
  if (!entry?.success) return [];
  return ((entry.analysis as { indicators?: Indicator[] }).indicators ?? []).map((i) => ({
    super_type: i.super_type,
    type: i.type,
    kind: i.kind,
    value: i.value,
    occurrences: i.occurrences,
  }));
}

function yaraOf(entry: Entry | undefined): FileReport["yara"] | null {
  if (!entry?.success) return null;
  const matches = (entry.analysis as { matches?: FileReport["yara"] }).matches ?? [];
  return matches.map((m) => ({ rule: m.rule, namespace: m.namespace, tags: m.tags }));
}

export function reportOf(file: string, name: string, size: number, answer: AllAnswer): FileReport {
  const p = answer.processors;
  const antivirus = antivirusOf(p.antivirus);
  const indicators = indicatorsOf(p.iocs);
  const yara = yaraOf(p.rulematch);
  const failures = Object.entries(p)
    .filter(([, e]) => !e.success)
    .map(([processor, e]) => ({ processor, error_short: e.error_short, error: e.error }));
  return {
    file,
    name,
    size,
    analysed: true,
    error: null,
    verdict: {
      level: answer.verdict?.level ?? null,
      reasons: answer.verdict?.reasons ?? [],
      malicious: antivirus.status === "infected",
      antivirus,
      yara_matches: yara === null ? null : yara.length,
      indicators: indicators.length,
    },
    ...extractorFacts(p.extractor, p.iocs),
    tree: treeOf(p.extractor),
    indicators,
    yara: yara ?? [],
    failures,
    thumbnail: null,
    intel: null,
    result: answer,
  };
}
