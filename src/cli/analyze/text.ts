/** The readable report of one file: the verdict first, then what the file is and what it points to. */
import type { FileReport, IntelVerdict } from "./report.ts";

/**
 * Values come from the file and the service: control characters must not drive the terminal, nor
 * bidirectional overrides and isolates reorder what is shown (`invoice\u202Eexe.pdf`), nor line
 * separators break a line.
 */
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

export function safe(value: string): string {
  return value.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

function verdictLine(r: FileReport): string {
  const av = r.verdict.antivirus;
  const level = r.verdict.level;
  const avText =
    av.status === "infected"
      ? `MALICIOUS (${safe(av.signature ?? "detected")})`
      : level === "incomplete" || level === "suspicious"
        ? `${level.toUpperCase()} (${r.verdict.reasons.length} reason(s) below)`
        : av.status === "clean"
          ? "clean"
          : av.status === "failed"
            ? `antivirus failed: ${safe(av.error ?? "")}`
            : "antivirus not run";
  const yara = r.verdict.yara_matches === null ? "no rules" : `${r.verdict.yara_matches} YARA match(es)`;
  return `verdict:  ${avText}; ${yara}; ${r.verdict.indicators} indicator(s)`;
}

function intelLine(v: IntelVerdict): string {
  const head = `    ${v.type} ${safe(v.value)}:`;
  if (v.status !== "found") return `${head} ${v.status}${v.error ? ` (${safe(v.error)})` : ""}`;
  if (v.nobody_asked) return `${head} nobody was asked: ${safe(v.nobody_asked.detail)}`;
  const vendors = Object.entries(v.vendors).map(([name, s]) => `${name} ${s.status}`);
  const malicious = v.attributes.is_malicious === "true" || v.attributes.is_malicious === true;
  const known = Object.values(v.vendors).some((s) => s.status === "ok");
  const judged = malicious ? "MALICIOUS" : known ? "known, not flagged" : "unknown to the vendors";
  const score = typeof v.attributes.vt_score === "string" ? ` (score ${safe(v.attributes.vt_score)})` : "";
  return `${head} ${judged}${score}; ${vendors.join(", ") || "no vendor"}; ${v.events} event(s)`;
}

function indicatorLines(r: FileReport): string[] {
  const byType = new Map<string, string[]>();
  for (const i of r.indicators) {
    const key = i.kind === i.type.toLowerCase() ? i.type : `${i.type} (${i.kind})`;
    byType.set(key, [...(byType.get(key) ?? []), safe(i.value)]);
  }
  if (byType.size === 0) return [];
  return [
    "indicators:",
    ...[...byType].flatMap(([type, values]) => [`  ${type}:`, ...values.map((v) => `    ${v}`)]),
  ];
}

/** Each reason with its node path, the worst first. */
function reasonLines(r: FileReport): string[] {
  if (r.verdict.reasons.length === 0) return [];
  return [
    "reasons:",
    ...r.verdict.reasons.map((x) => `  ${safe(x.path)}: ${safe(x.processor)}: ${safe(x.detail)}`),
  ];
}

/** The file and what is inside it, indented by depth; each node's findings beside it. */
function treeLines(r: FileReport): string[] {
  if (r.tree.length < 2) return [];
  const found = new Map<string, string[]>();
  for (const x of r.verdict.reasons)
    found.set(x.path, [...(found.get(x.path) ?? []), `${safe(x.processor)}: ${safe(x.detail)}`]);
  return [
    "tree:",
    ...r.tree.map((n) => {
      const facts = [n.type ?? "unknown type", n.size === null ? null : `${n.size} bytes`];
      if (n.status !== "analysed") facts.push(`${n.status}: ${n.reason ?? ""}`);
      const notes = found.get(n.path);
      const line = `${"  ".repeat(n.depth + 1)}${safe(n.name)} (${safe(facts.filter(Boolean).join(", "))})`;
      return notes ? `${line} ← ${notes.join("; ")}` : line;
    }),
  ];
}

/** Every line escaped once more as a whole (escaping is idempotent): no value reaches the terminal raw. */
const printable = (lines: string[]) => [...lines.map(safe), ""].join("\n");

export function textReport(r: FileReport): string {
  const lines = [`== ${safe(r.file)}`];
  if (!r.analysed)
    return printable([...lines, `error:    ${safe(r.error?.detail ?? "")} (${r.error?.code})`]);
  lines.push(verdictLine(r), ...reasonLines(r), ...treeLines(r));
  lines.push(`type:     ${safe(r.type ?? "unknown")}`, `size:     ${r.size} bytes`);
  for (const [name, value] of Object.entries(r.hashes))
    if (value) lines.push(`${`${safe(name)}:`.padEnd(10)}${safe(String(value))}`);
  lines.push(...indicatorLines(r));
  if (r.verdict.antivirus.status === "infected")
    lines.push(`antivirus: ${safe(r.verdict.antivirus.signature ?? "")}`);
  if (r.yara.length > 0) lines.push("yara:", ...r.yara.map((m) => `  ${safe(m.namespace)}:${safe(m.rule)}`));
  if (r.thumbnail) lines.push(`thumbnail: ${safe(r.thumbnail)}`);
  for (const f of r.failures)
    lines.push(`failed:   ${f.processor} (${f.error_short}): ${safe(f.error ?? "")}`);
  if (r.intel)
    lines.push("intel:", ...(r.intel.length ? r.intel.map(intelLine) : ["    nothing intel looks up"]));
  return printable(lines);
}
