/**
 * History: every kept file analysis, newest first, a page at a time, searched by name or by the
 * md5/sha1/sha256 of any node of its tree (an attachment's hash finds the e-mail), by verdict,
 * user and day. The search is the analyses service's, the same as `GET /api/analyses/?q=`.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { AnalysisView } from "../../services/analyses.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { type Html, html } from "../html.ts";
import { when } from "../layout.ts";
import { pager } from "../paging.ts";
import { analysesOf, filesHint, panelViewer } from "./analyse.ts";

const VERDICTS = ["malicious", "suspicious", "incomplete", "clean"] as const;
const PAGE_SIZE = 50;
const Day = Type.Union([Type.Literal(""), Type.String({ format: "date" })]);

const Query = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 256 })),
  verdict: Type.Optional(Type.Union([Type.Literal(""), ...VERDICTS.map((v) => Type.Literal(v))])),
  user: Type.Optional(Type.String({ maxLength: 150 })),
  from: Type.Optional(Day),
  to: Type.Optional(Day),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
});

type HistoryQuery = {
  q?: string;
  verdict?: string;
  user?: string;
  from?: string;
  to?: string;
  page?: number;
};

function filters(q: HistoryQuery): Html {
  return html`<form method="get" class="row filters">
  <label class="grow">Name or hash of any file inside <input name="q" value="${q.q ?? ""}" autocomplete="off" placeholder="invoice.zip, or an md5/sha1/sha256"></label>
  <label>Verdict <select name="verdict"><option value="">any</option>${VERDICTS.map((v) => html`<option ${v === q.verdict ? html`selected` : ""}>${v}</option>`)}</select></label>
  <label>User <input name="user" value="${q.user ?? ""}" autocomplete="off" size="12"></label>
  <label>From <input type="date" name="from" value="${q.from ?? ""}"></label>
  <label>To <input type="date" name="to" value="${q.to ?? ""}"></label>
  <button type="submit">Search</button>
</form>`;
}

function row(deps: AdminDeps, a: AnalysisView): Html {
  const verdict = a.verdict
    ? html`<span class="assessment" data-assessment="${a.verdict}">${a.verdict}</span>`
    : html`<span class="status ${a.status === "failed" ? "failed" : "processing"}">${a.status}</span>`;
  return html`<tr>
  <td><a href="${deps.prefix}/analyses/${encodeURIComponent(a.id)}" class="subject">${a.name}</a>${a.shared ? html` <span class="badge shared">shared</span>` : ""}<br><code class="hash small muted">${a.sha256}</code></td>
  <td>${verdict}</td>
  <td>${a.tlp} / ${a.pap}</td>
  <td>${a.user ?? "—"}</td>
  <td>${when(a.created)}</td>
</tr>`;
}

export function registerHistory(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: HistoryQuery }>(
    "/analyses",
    { schema: { querystring: Query } },
    async (req, reply) => {
      const q = req.query;
      const n = q.page ?? 1;
      const found = await analysesOf(deps).list(panelViewer(req), {
        q: q.q?.trim() || undefined,
        verdict: q.verdict || undefined,
        user: q.user?.trim() || undefined,
        from: q.from || undefined,
        to: q.to || undefined,
        page: n,
        pageSize: PAGE_SIZE,
      });
      const kept = { q: q.q, verdict: q.verdict, user: q.user, from: q.from, to: q.to };
      const body = html`${filesHint(deps)}
<p><a class="button" href="${deps.prefix}/analyse">Analyse a file</a></p>
${filters(q)}
<p class="muted small">${found.count} ${found.count === 1 ? "analysis" : "analyses"}</p>
${
  found.results.length
    ? html`<table class="analyses"><thead><tr><th>File</th><th>Verdict</th><th>TLP / PAP</th><th>User</th><th>Sent</th></tr></thead><tbody>${found.results.map((a) => row(deps, a))}</tbody></table>`
    : html`<p class="muted">No analysis matches.</p>`
}
${pager(kept, n, n * PAGE_SIZE < found.count)}`;
      return sendPage(req, reply, deps, { title: "History", active: "analyses", body });
    },
  );
}
