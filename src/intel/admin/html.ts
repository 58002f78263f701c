/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already
 * `Html` (made by this template), so a vendor's hostile string can only ever become text.
 */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Bidirectional controls (U+061C, U+200E–F, U+202A–E, U+2066–9): they would reorder what is shown around them. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text made inert: markup escaped, and bidirectional controls shown as their code point (`<U+202E>`). */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!)
    .replace(
      BIDI_CONTROLS,
      (c) => `&lt;U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}&gt;`,
    );
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** A link target from a vendor is only kept when it is plain http(s): no javascript:, data: or relative tricks. */
export function safeHref(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** JSON for a `<script type="application/json">` block: `<` is escaped so `</script>` cannot close it. */
export function jsonScript(id: string, data: unknown): Html {
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
