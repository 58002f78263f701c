/**
 * How alike two extracted texts are, on normalised words: Unicode NFKC (ligatures such as "ﬁ"
 * become "fi"), lower case, split on anything that is not a letter or a digit.
 *
 * - `words`: Dice coefficient of the two word multisets, 2·|A∩B| / (|A|+|B|) — 1 when both
 *   texts hold the same words the same number of times; glued or split words, lost or invented
 *   text all lower it.
 * - `bigrams`: the same over pairs of consecutive words, which also drops when the reading order
 *   differs (columns interleaved, table cells out of order, lines joined to the wrong neighbour).
 */
export function normalisedWords(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

function counts(items: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const it of items) m.set(it, (m.get(it) ?? 0) + 1);
  return m;
}

function dice(a: string[], b: string[]): number {
  if (a.length + b.length === 0) return 1;
  const ca = counts(a);
  let common = 0;
  for (const [item, n] of counts(b)) common += Math.min(n, ca.get(item) ?? 0);
  return (2 * common) / (a.length + b.length);
}

const bigrams = (words: string[]) => words.slice(1).map((w, i) => `${words[i]} ${w}`);

export function similarity(
  a: string,
  b: string,
): { words: number; bigrams: number; counts: [number, number] } {
  const wa = normalisedWords(a);
  const wb = normalisedWords(b);
  return { words: dice(wa, wb), bigrams: dice(bigrams(wa), bigrams(wb)), counts: [wa.length, wb.length] };
}
