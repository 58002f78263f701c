/**
 * Values that are obviously not a vendor's key: what READMEs, templates and forms show in its place
 * (`YOUR_VT_KEY`, `<key>`, `changeme`, `xxxx`, `…`). Refused when a set is saved or tried, so a copied
 * example line never becomes a set that fails every request; real keys are never words like these.
 */

const WORDS = new Set(
  [
    "apikey",
    "api_key",
    "api-key",
    "key",
    "changeme",
    "change_me",
    "change-me",
    "replaceme",
    "replace_me",
    "replace-me",
    "placeholder",
    "secret",
    "token",
    "password",
    "todo",
    "tbd",
    "example",
    "dummy",
    "none",
    "null",
    "undefined",
  ].map((w) => w.toLowerCase()),
);

const SHAPES: RegExp[] = [
  /^your[\s_-]/i, // YOUR_VT_KEY, your-api-key
  /^<.*>$|^\{\{.*\}\}$|^\$\{.*\}$|^\[.*\]$/, // <key>, {{key}}, ${KEY}, [key]
  /^[x*._-]+$/i, // xxxx, ****, xxxx-xxxx
  /^(.)\1+$/, // 0000, aaaa
  /…|\.\.\./, // an elided example
];

/** Why `value` looks like a placeholder rather than a key, or undefined when it does not. */
export function placeholderProblem(field: string, value: string): string | undefined {
  const v = value.trim();
  if (WORDS.has(v.toLowerCase()) || SHAPES.some((s) => s.test(v)))
    return `${field} "${v.length > 24 ? `${v.slice(0, 24)}…` : v}" is a placeholder, not a key: paste the key the vendor gave you.`;
  return undefined;
}
