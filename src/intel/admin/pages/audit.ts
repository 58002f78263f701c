/**
 * The audit log page (newest first, paged, filtered by action) and its export as CSV or JSON.
 * `audit()` is what every changing form of the panel calls once its change is made.
 */
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import { AUDIT_ACTIONS, type AuditAction, auditCsv, auditPage, recordAudit } from "../../services/audit.ts";
import { type AdminDeps, sendPage, signedIn } from "../context.ts";
import { html } from "../html.ts";
import { when } from "../layout.ts";

const PAGE = 50;
const ActionFilter = Type.Optional(
  Type.Union([
    Type.Literal(""),
    ...[...new Set(AUDIT_ACTIONS.map((a) => a.split(".")[0]!))].map((a) => Type.Literal(a)),
  ]),
);
const Query = Type.Object({
  action: ActionFilter,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
});
const ExportQuery = Type.Object({
  format: Type.Union([Type.Literal("csv"), Type.Literal("json")]),
  action: ActionFilter,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 10_000 })),
});

/** Records a change made by the signed-in admin. */
export function audit(
  req: FastifyRequest,
  deps: AdminDeps,
  action: AuditAction,
  target: string,
  detail = "",
): Promise<void> {
  return recordAudit(deps.services, signedIn(req).user.username, action, target, detail);
}

export function registerAudit(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: { action?: string; page?: number } }>(
    "/audit",
    { schema: { querystring: Query } },
    async (req, reply) => {
      const action = req.query.action || undefined;
      const n = req.query.page ?? 1;
      const { entries, total } = await auditPage(deps.services, {
        limit: PAGE + 1,
        offset: (n - 1) * PAGE,
        action,
      });
      const more = entries.length > PAGE;
      const q = (extra: Record<string, string>) =>
        new URLSearchParams({ ...(action ? { action } : {}), ...extra }).toString();
      const body = html`
<form method="get" class="row filters">
  <label>Changes to <select name="action">
    <option value="">anything</option>
    ${["user", "key", "credentials"].map((a) => html`<option value="${a}" ${a === action ? html`selected` : ""}>${a === "key" ? "API keys" : a}</option>`)}
  </select></label>
  <button type="submit" class="secondary">Filter</button>
  <a class="button secondary" href="${deps.prefix}/audit/export?${q({ format: "csv" })}">Export CSV</a>
  <a class="button secondary" href="${deps.prefix}/audit/export?${q({ format: "json" })}">Export JSON</a>
</form>
<p class="muted">${total} change${total === 1 ? "" : "s"} recorded in all.</p>
${
  entries.length === 0
    ? html`<p class="muted">Nothing recorded${action ? " of this kind" : ""} yet.</p>`
    : html`<table class="audit sortable"><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Detail</th></tr></thead><tbody>
${entries.slice(0, PAGE).map((e) => html`<tr><td>${when(e.at)}</td><td>${e.actor}</td><td><code>${e.action}</code></td><td>${e.target}</td><td>${e.detail}</td></tr>`)}
</tbody></table>`
}
<p class="pager">${n > 1 ? html`<a href="?${q({ page: String(n - 1) })}">← Newer</a>` : ""} ${more ? html`<a href="?${q({ page: String(n + 1) })}">Older →</a>` : ""}</p>`;
      return sendPage(req, reply, deps, { title: "Audit log", active: "audit", body });
    },
  );

  admin.get<{ Querystring: { format: "csv" | "json"; action?: string; limit?: number } }>(
    "/audit/export",
    { schema: { querystring: ExportQuery } },
    async (req, reply) => {
      const { entries } = await auditPage(deps.services, {
        limit: req.query.limit ?? 10_000,
        offset: 0,
        action: req.query.action || undefined,
      });
      const name = `loupe-audit-${new Date().toISOString().slice(0, 10)}.${req.query.format}`;
      reply
        .header("cache-control", "no-store")
        .header("content-disposition", `attachment; filename="${name}"`);
      if (req.query.format === "json") return reply.type("application/json; charset=utf-8").send(entries);
      return reply.type("text/csv; charset=utf-8").send(auditCsv(entries));
    },
  );
}
