/** Recent requests: subject, status, each vendor's outcome and error, duration; filtered by status. */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { SourceOutcome } from "../../services/browse.ts";
import { type RequestOrder, recentRequests } from "../../services/browse.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { html } from "../html.ts";
import { when } from "../layout.ts";
import { PAGE_SIZE, PageParam, pager, pageWindow, sortParam, sortSelect } from "../paging.ts";

const ORDERS: Record<RequestOrder, string> = {
  newest: "newest first",
  oldest: "oldest first",
  subject: "by subject",
  status: "by status",
};

const STATUSES = ["ENQUEUED", "PROCESSING", "SUCCEEDED", "FAILED"] as const;

const Query = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal(""), ...STATUSES.map((s) => Type.Literal(s))])),
  q: Type.Optional(Type.String({ maxLength: 512 })),
  sort: sortParam(ORDERS),
  page: PageParam,
  /** Rows per page. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

interface RequestsQuery {
  status?: string;
  q?: string;
  sort?: RequestOrder | "";
  page?: number;
  limit?: number;
}

function duration(started: string | null, finished: string | null): string {
  if (!started || !finished) return "";
  const ms = Date.parse(finished) - Date.parse(started);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function registerRequests(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: RequestsQuery }>(
    "/requests",
    { schema: { querystring: Query } },
    async (req, reply) => {
      const status = req.query.status || undefined;
      const text = req.query.q?.trim() ?? "";
      const sort = req.query.sort || "newest";
      const { n, size, limit, offset } = pageWindow(req.query.page, req.query.limit ?? PAGE_SIZE);
      const found = await recentRequests(deps.services, { status, text, sort, limit, offset });
      const rows = found.slice(0, size);
      const kept = { status, q: text, sort, limit: req.query.limit ? String(req.query.limit) : undefined };
      const body = html`
<form method="get" class="row filters">
  <label class="grow">Value contains <input name="q" value="${text}" autocomplete="off"></label>
  <label>Status <select name="status">
    <option value="">any</option>
    ${STATUSES.map((s) => html`<option ${s === status ? html`selected` : ""}>${s}</option>`)}
  </select></label>
  ${sortSelect(ORDERS, sort)}
  <button type="submit" class="secondary">Filter</button>
</form>
${
  rows.length === 0
    ? html`<p class="muted">No request${status ? ` with status ${status}` : ""}${text ? " matching" : ""}${n > 1 ? " on this page" : " yet"}.</p>`
    : html`<table class="requests sortable"><thead><tr><th>Created</th><th>Subject</th><th>Status</th><th>Vendors</th><th>Duration</th></tr></thead><tbody>
${rows.map((r) => {
  const vendors = Object.entries(JSON.parse(r.vendors) as Record<string, SourceOutcome>);
  const q = new URLSearchParams({ super_type: r.super_type, type: r.type, value: r.value });
  return html`<tr>
  <td><a href="${deps.prefix}/requests/${r.id}" title="Details and raw answers">${when(r.created_at)}</a></td>
  <td><span class="muted">${r.super_type}/${r.type}</span><br><a href="${deps.prefix}/investigate?${q.toString()}" class="subject">${r.value}</a>${r.force ? html` <span class="badge">forced</span>` : ""}</td>
  <td><span class="status ${r.status.toLowerCase()}">${r.status}</span>${r.error ? html`<br><span class="bad small">${r.error}</span>` : ""}</td>
  <td>${vendors.length === 0 ? html`<span class="muted">—</span>` : html`<ul class="vendors">${vendors.map(([v, o]) => html`<li><strong>${v}</strong> <span class="status ${o.status}">${o.status}</span>${o.error ? html` <span class="bad small">${o.error}</span>` : ""}</li>`)}</ul>`}</td>
  <td>${duration(r.started_at, r.finished_at)}</td>
</tr>`;
})}
</tbody></table>`
}
${pager(kept, n, found.length > size)}`;
      return sendPage(req, reply, deps, { title: "Requests", active: "requests", body });
    },
  );
}
