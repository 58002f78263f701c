/** The webhook delivery log: every webhook call recorded, newest first, with its outcome. */
import type { App } from "../../../common/http.ts";
import { deliveries } from "../../services/webhooks.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { html } from "../html.ts";
import { when } from "../layout.ts";

const SHOWN = 200;

export function registerWebhooks(admin: App, deps: AdminDeps): void {
  admin.get("/webhooks", async (req, reply) => {
    const log = await deliveries(deps.services, undefined, SHOWN);
    const body = html`
<p class="muted">The latest ${SHOWN} webhook deliveries: one per finished request or batch a key's webhook waits for. Pending ones are retried with backoff.</p>
${
  log.length === 0
    ? html`<p class="muted">No webhook delivery yet.</p>`
    : html`<table class="deliveries sortable"><thead><tr><th>Made</th><th>Webhook URL</th><th>Event</th><th>Target</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th></tr></thead><tbody>
${log.map((d) => html`<tr><td>${when(d.created_at)}</td><td>${d.url}</td><td><code>${d.event}</code></td><td><code>${d.target_id}</code></td><td>${d.status}</td><td>${d.attempts}</td><td>${d.last_status ?? ""} ${d.last_error ?? ""}</td><td>${d.status === "pending" ? when(d.next_attempt_at) : ""}</td></tr>`)}
</tbody></table>`
}`;
    return sendPage(req, reply, deps, { title: "Webhook deliveries", active: "webhooks", body });
  });
}
