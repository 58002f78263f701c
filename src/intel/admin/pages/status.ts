/**
 * Status: workers, queue depth, cached graph sizes, each connector (usable, fresh for how long,
 * calls left) and the local data the offline connectors read (licence, age).
 */
import type { App } from "../../../common/http.ts";
import { feedCopies } from "../../services/feeds.ts";
import type { VendorQuotaView } from "../../services/quotas.ts";
import { serviceStatus } from "../../services/status.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { vendorHint } from "../hints.ts";
import { html } from "../html.ts";
import { feedsSection, localDataSection } from "../local-data.ts";

export function registerStatus(admin: App, deps: AdminDeps): void {
  admin.get("/status", async (req, reply) => {
    const { services } = deps;
    const s = await serviceStatus(services);
    const modules = new Map(s.available_modules.map((m) => [m.id, m]));
    const tile = (label: string, value: number | string) =>
      html`<div class="tile"><span class="value">${value}</span><span class="label">${label}</span></div>`;
    const body = html`${await vendorHint(deps)}
<div class="tiles">
  ${tile("workers", s.workers.length)}
  ${tile("queued lookups", s.queue.queued)}
  ${tile("running lookups", s.queue.running)}
  ${tile("entities", s.cached_entities)}
  ${tile("relations", s.cached_relations)}
  ${tile("events", s.cached_events)}
</div>
<h2>Workers</h2>
${s.workers.length ? html`<ul>${s.workers.map((w) => html`<li><code>${w.id}</code> ${w.status}</li>`)}</ul>` : html`<p class="bad">No worker has been seen recently: requests stay queued until one runs (<code>./loupe intel worker</code>).</p>`}
<h2>Connectors</h2>
<table><thead><tr><th>Connector</th><th>Vendor</th><th>State</th><th>Fresh for</th><th>Calls left</th></tr></thead><tbody>
${services.connectors.map((c) => {
  const m = modules.get(c.id);
  const state = m?.usable
    ? html`<span class="ok">usable</span>`
    : html`<a class="bad" href="${deps.prefix}/credentials#vendor-${c.id}">needs credentials</a>`;
  return html`<tr><td><code>${c.id}</code></td><td>${c.vendor}</td><td>${state}</td><td>${m ? lifetime(m.ttl_seconds) : ""}</td><td>${m ? callsLeft(m.quota) : ""}</td></tr>`;
})}
</tbody></table>
${localDataSection(services.connectors)}
${feedsSection(await feedCopies(services), services.config.feedsRefreshMinutes)}
<p class="muted">Database: ${services.store.dialect} · Admin sessions last ${services.config.adminSessionHours} h.</p>`;
    return sendPage(req, reply, deps, { title: "Status", active: "status", body });
  });
}

/** A TTL in the largest whole unit: "24 h", "7 days", "90 s". */
function lifetime(seconds: number): string {
  if (seconds === 0) return "never (asked every time)";
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** What is left of a vendor's quota over its sets in rotation, and why calls wait when blocked. */
function callsLeft(q: VendorQuotaView): string {
  const part = (left: number | null, limit: number | null, per: string) =>
    limit === null ? null : `${left ?? limit} of ${limit} a ${per}`;
  const parts = [part(q.remaining_minute, q.per_minute, "minute"), part(q.remaining_day, q.per_day, "day")];
  const limits = parts.filter((p) => p !== null).join(" · ") || "no limit";
  const blocked = q.sets
    .map((set) => set.blocked_until)
    .filter((b): b is string => !!b)
    .sort()[0];
  return blocked ? `${limits} · blocked until ${blocked} (the vendor asked to wait)` : limits;
}
