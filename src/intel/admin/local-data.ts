/**
 * The Status page's "Local data": what each local connector reads on this machine, its licence,
 * whom to credit (CC BY asks for it where results are shown) and how old it is.
 */
import type { Connector } from "../connectors/types.ts";
import { type Html, html } from "./html.ts";
import { when } from "./layout.ts";

const DAY_MS = 86_400_000;

/** "12 days old", from the data's date to `now`. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "date unknown";
  const days = Math.floor((now - Date.parse(iso)) / DAY_MS);
  return days <= 0 ? "less than a day old" : `${days} day${days === 1 ? "" : "s"} old`;
}

export function localDataSection(connectors: Connector[]): Html {
  const rows = connectors.flatMap((c) => (c.localData?.() ?? []).map((d) => ({ id: c.id, ...d })));
  if (rows.length === 0) return html``;
  return html`<h2>Local data</h2>
<p class="muted">Read on this machine: nothing is sent out when these connectors answer.</p>
<table class="local-data"><thead><tr><th>Connector</th><th>Data</th><th>From</th><th>Licence</th><th>Made</th></tr></thead><tbody>
${rows.map(
  (r) =>
    html`<tr><td><code>${r.id}</code></td><td>${r.name}</td><td>${r.origin}</td><td>${r.licence}: ${r.attribution}${r.link ? html` (<a href="${r.link}">${r.link}</a>)` : ""}</td><td>${r.date ? when(r.date) : ""} (${age(r.date)})</td></tr>`,
)}
</tbody></table>`;
}
