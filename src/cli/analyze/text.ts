/** The readable report of one file: the verdict first, then what the file is and what it points to. */
import type { FileReport, IntelVerdict } from "./report.ts";

/** Values come from the file: control characters must not drive the terminal. */
function safe(value: string): string {
  return value.replace(/\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function verdictLine(r: FileReport): string {
  const av = r.verdict.antivirus;
  const avText =
    av.status === "infected"
      ? `MALICIOUS (${safe(av.signature ?? "detected")})`
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

export function textReport(r: FileReport): string {
  const lines = [`== ${safe(r.file)}`];
  if (!r.analysed)
    return [...lines, `error:    ${safe(r.error?.detail ?? "")} (${r.error?.code})`, ""].join("\n");
  lines.push(verdictLine(r));
  lines.push(`type:     ${r.type ?? "unknown"}`, `size:     ${r.size} bytes`);
  for (const [name, value] of Object.entries(r.hashes))
    if (value) lines.push(`${`${name}:`.padEnd(10)}${value}`);
  lines.push(...indicatorLines(r));
  if (r.verdict.antivirus.status === "infected")
    lines.push(`antivirus: ${safe(r.verdict.antivirus.signature ?? "")}`);
  if (r.yara.length > 0) lines.push("yara:", ...r.yara.map((m) => `  ${safe(m.namespace)}:${safe(m.rule)}`));
  if (r.thumbnail) lines.push(`thumbnail: ${safe(r.thumbnail)}`);
  for (const f of r.failures)
    lines.push(`failed:   ${f.processor} (${f.error_short}): ${safe(f.error ?? "")}`);
  if (r.intel)
    lines.push("intel:", ...(r.intel.length ? r.intel.map(intelLine) : ["    nothing intel looks up"]));
  return [...lines, ""].join("\n");
}
