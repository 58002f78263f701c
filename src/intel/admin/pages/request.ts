/**
 * One request: its subject, status and times, each vendor's outcome, and each vendor's raw answer
 * as it came (pretty-printed, secrets redacted when it was kept, cut to INTEL_RAW_ANSWER_MAX_BYTES)
 * — for the admin checking what a vendor really said. Shown as text: a vendor's HTML stays text.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { SourceOutcome } from "../../services/browse.ts";
import { requestWithRawAnswers } from "../../services/browse.ts";
import { type AdminDeps, redirectWithFlash, sendPage } from "../context.ts";
import { type Html, html } from "../html.ts";
import { when } from "../layout.ts";

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [n, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / 1024 / 1024, "MB"];
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${unit}`;
}

export function registerRequestPage(admin: App, deps: AdminDeps): void {
  admin.get<{ Params: { id: string } }>(
    "/requests/:id",
    { schema: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } },
    async (req, reply) => {
      const found = await requestWithRawAnswers(deps.services, req.params.id);
      if (!found)
        return redirectWithFlash(reply, deps, "/requests", { kind: "error", text: "No such request." });
      const { request: r, raw } = found;
      const vendors = Object.entries(JSON.parse(r.vendors) as Record<string, SourceOutcome>);
      const q = new URLSearchParams({ super_type: r.super_type, type: r.type, value: r.value });
      const limit = deps.services.config.rawAnswerMaxBytes;
      const body = html`
<dl class="facts">
  <dt>Subject</dt><dd><span class="muted">${r.super_type}/${r.type}</span> <a href="${deps.prefix}/investigate?${q.toString()}" class="subject">${r.value}</a>${r.force ? html` <span class="badge">forced</span>` : ""}</dd>
  <dt>Status</dt><dd><span class="status ${r.status.toLowerCase()}">${r.status}</span>${r.error ? html` <span class="bad small">${r.error}</span>` : ""}</dd>
  <dt>Created / started / finished</dt><dd>${when(r.created_at)} / ${when(r.started_at)} / ${when(r.finished_at)}</dd>
</dl>
<h2>Vendors <span class="count">${vendors.length}</span></h2>
${vendors.length ? html`<table class="sortable"><thead><tr><th>Vendor</th><th>Outcome</th><th>Answered</th></tr></thead><tbody>${vendors.map(([v, o]) => html`<tr><td>${v}</td><td><span class="status ${o.status}">${o.status}</span>${o.error ? html`<br><span class="bad small">${o.error}</span>` : ""}</td><td>${when(o.fetched_at)}</td></tr>`)}</tbody></table>` : html`<p class="muted">No vendor was asked.</p>`}
<h2 id="raw">Raw answers <span class="count">${raw.length}</span></h2>
<p class="muted small">What each vendor sent, before Loupe read it: the values of the credential set used and every value under a key named like a key, token, password, secret or authorization are replaced by [redacted]. ${limit > 0 ? `Kept up to ${size(limit)} per vendor.` : "Not kept on this server (INTEL_RAW_ANSWER_MAX_BYTES=0)."}</p>
${raw.length ? raw.map(rawAnswer) : html`<p class="muted">None kept for this request (no vendor answered, or it ran before answers were kept).</p>`}`;
      return sendPage(req, reply, deps, { title: `Request ${r.id.slice(0, 8)}`, active: "requests", body });
    },
  );
}

function rawAnswer(a: { vendor: string; body: string; size: number; truncated: boolean }): Html {
  const cut = a.truncated
    ? html` · <span class="bad">cut: first ${size(Buffer.byteLength(a.body))} shown</span>`
    : "";
  return html`<details class="raw" id="raw-${a.vendor}">
  <summary><strong>${a.vendor}</strong> <span class="muted">${size(a.size)}</span>${cut}</summary>
  <pre><code>${a.body}</code></pre>
</details>`;
}
