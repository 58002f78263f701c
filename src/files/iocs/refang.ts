/**
 * Undoes defanging (hxxp, [.], (.), [at], [:]) in one pass and keeps a map from the refanged text
 * back to the original, so each indicator's offset points at what the user sees.
 */

/** Every alternative is a bounded literal: linear on any input. Spaces around [.] and [at] are dropped in code. */
export const DEFANG_PATTERN =
  /\[(?:\.|dot|at|@|:|:\/\/|\/)\]|\((?:\.|dot|at|@)\)|\{(?:\.|dot|at)\}|\bhxxp|\bfxp/gi;

export interface Refanged {
  text: string;
  /** Whether any defanging was undone. */
  changed: boolean;
  /** Offset in the original text of a refanged offset. */
  original(offset: number): number;
  /** Whether the refanged span [start, end) touches an undone defang. */
  touchesDefang(start: number, end: number): boolean;
  /** The undone defangs that touch [start, end), as [start, end) pairs in refanged offsets. */
  defangsIn(start: number, end: number): number[];
}

function replacement(match: string): string {
  const m = match.trim().toLowerCase();
  if (m.startsWith("hxxp")) return `http${m.slice(4)}`;
  if (m === "fxp") return "ftp";
  if (m === "[://]") return "://";
  if (m === "[:]") return ":";
  if (m === "[/]") return "/";
  if (m.includes("at") || m.includes("@")) return "@";
  return ".";
}

export function refang(input: string): Refanged {
  // Checkpoints: at refanged offset out[i], the original offset is inp[i] (and grows 1:1 after).
  const out: number[] = [0];
  const inp: number[] = [0];
  const spans: number[] = [];
  let text = "";
  let last = 0;
  for (const m of input.matchAll(DEFANG_PATTERN)) {
    const repl = replacement(m[0]);
    let index = m.index;
    let end = index + m[0].length;
    // "evil [.] com", "john [at] mail [.] com": the spaces belong to the defang.
    if (
      (repl === "." || repl === "@") &&
      input[index - 1] === " " &&
      input[end] === " " &&
      index - 1 >= last
    ) {
      index -= 1;
      end += 1;
    }
    if (index < last) continue;
    text += input.slice(last, index);
    const start = text.length;
    text += repl;
    spans.push(start, text.length);
    last = end;
    out.push(text.length);
    inp.push(last);
  }
  if (out.length === 1) {
    return {
      text: input,
      changed: false,
      original: (o) => o,
      touchesDefang: () => false,
      defangsIn: () => [],
    };
  }
  text += input.slice(last);
  const original = (offset: number) => {
    const i = lastAtOrBefore(out, offset);
    // Inside a replacement: point at its start in the original.
    const base = inp[i] ?? 0;
    const pos = out[i] ?? 0;
    return base + (offset - pos);
  };
  const defangsIn = (start: number, end: number) => {
    const out: number[] = [];
    for (let i = lastAtOrBefore(spans, start) & ~1; i < spans.length; i += 2) {
      const s = spans[i] ?? 0;
      const e = spans[i + 1] ?? 0;
      if (s >= end) break;
      if (e > start) out.push(s, e);
    }
    return out;
  };
  const touchesDefang = (start: number, end: number) => defangsIn(start, end).length > 0;
  return { text, changed: true, original, touchesDefang, defangsIn };
}

/** Index of the last element ≤ value in a sorted array (0 when none). */
function lastAtOrBefore(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((sorted[mid] ?? 0) <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
