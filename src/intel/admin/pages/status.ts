/** Status: workers, queue depth, cached graph sizes, and which connectors are usable. */
import type { App } from "../../../common/http.ts";
import { serviceStatus } from "../../services/status.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { vendorHint } from "../hints.ts";
import { html } from "../html.ts";

export function registerStatus(admin: App, deps: AdminDeps): void {
  admin.get("/status", async (req, reply) => {
    const { services } = deps;
    const s = await serviceStatus(services);
    const usable = new Set(s.available_modules.filter((m) => m.usable).map((m) => m.id));
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
<table><thead><tr><th>Connector</th><th>Vendor</th><th>State</th></tr></thead><tbody>
${services.connectors.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.vendor}</td><td>${usable.has(c.id) ? html`<span class="ok">usable</span>` : html`<a class="bad" href="${deps.prefix}/credentials#vendor-${c.id}">needs credentials</a>`}</td></tr>`)}
</tbody></table>
<p class="muted">Database: ${services.store.dialect} · Admin sessions last ${services.config.adminSessionHours} h.</p>`;
    return sendPage(req, reply, deps, { title: "Status", active: "status", body });
  });
}
