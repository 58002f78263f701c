/**
 * The Status page's "Local data": what each local connector reads on this machine, its licence,
 * whom to credit (CC BY asks for it where results are shown) and how old it is; and the feed
 * copies the workers download, with their age and the last refresh's failure.
 */

import type { FeedCopyView } from "../services/feeds.ts";
import type { Connector } from "../services/index.ts";
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

/** The downloaded feeds: entries, age of the copy, last confirmation, and a failed refresh's reason. */
export function feedsSection(copies: FeedCopyView[], feedsRefreshMinutes: number): Html {
  const every =
    feedsRefreshMinutes === 0
      ? "never refreshed (INTEL_FEEDS_REFRESH_MINUTES=0): the copies below stay as they are"
      : `refreshed every ${feedsRefreshMinutes} min by the workers (conditional GET)`;
  return html`<h2>Local feeds</h2>
<p class="muted">Public blocklists and spyware indicators, ${every}. Lookups read these copies: nothing is sent out.</p>
${
  copies.length === 0
    ? html`<p class="bad">No copy yet: a worker downloads them when it starts.</p>`
    : html`<table class="feeds"><thead><tr><th>Feed</th><th>Entries</th><th>Copy</th><th>Last confirmed</th><th>Last refresh</th></tr></thead><tbody>
${copies.map(
  (c) =>
    html`<tr><td>${c.name}<br><code>${c.id}</code></td><td>${c.entries}</td><td>${c.fetchedAt ? html`${when(c.fetchedAt)} (${age(c.fetchedAt)})` : "none yet"}</td><td>${c.checkedAt ? when(c.checkedAt) : ""}</td><td>${c.error ? html`<span class="bad">failed: ${c.error}</span>${c.fetchedAt ? " (the copy held is kept)" : ""}` : html`<span class="ok">ok</span>`}</td></tr>`,
)}
</tbody></table>`
}`;
}
