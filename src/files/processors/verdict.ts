/**
 * One verdict over an upload's tree, from what every processor found (each processor says, in its
 * `findings`, what in its own answer is malicious, suspicious or left unexamined; nothing here
 * knows a processor by name). The rule (docs/antivirus.md, "The verdict"): malicious when anything
 * is; else incomplete when any node or processor was not analysed completely; else suspicious
 * when anything is; else clean. Every reason is listed, the worst first.
 */
import { Type } from "typebox";

export type FindingLevel = "malicious" | "suspicious" | "incomplete";

/** One thing a processor found, at a node of the tree (its path). */
export interface Finding {
  level: FindingLevel;
  path: string;
  detail: string;
}

export interface Verdict {
  level: FindingLevel | "clean";
  reasons: Array<{ path: string; processor: string; detail: string }>;
}

const ORDER: FindingLevel[] = ["malicious", "incomplete", "suspicious"];

export function verdictOf(findings: Array<Finding & { processor: string }>): Verdict {
  const seen = new Set<string>();
  const reasons: Verdict["reasons"] = [];
  let level: Verdict["level"] = "clean";
  for (const wanted of [...ORDER].reverse()) {
    if (findings.some((f) => f.level === wanted)) level = wanted;
  }
  for (const wanted of ORDER) {
    for (const f of findings) {
      const key = `${f.level}\0${f.processor}\0${f.path}\0${f.detail}`;
      if (f.level !== wanted || seen.has(key)) continue;
      seen.add(key);
      reasons.push({ path: f.path, processor: f.processor, detail: f.detail });
    }
  }
  return { level, reasons };
}

export const verdictSchema = Type.Object(
  {
    level: Type.Union([
      Type.Literal("malicious"),
      Type.Literal("suspicious"),
      Type.Literal("clean"),
      Type.Literal("incomplete"),
    ]),
    reasons: Type.Array(
      Type.Object({ path: Type.String(), processor: Type.String(), detail: Type.String() }),
    ),
  },
  {
    description:
      "One verdict over the file and everything taken out of it: clean only when every node was analysed completely and nothing was found.",
  },
);
