/**
 * One analysis' report: its facts, marking and sharing (analysis-share.ts), the enrich action
 * (its indicators asked of intel with the file's TLP/PAP, each verdict shown inline), the JSON
 * download, the file in the graph, the thumbnail of an image, and the report itself
 * (report-view.ts, drawn by static/report.js).
 * A pending analysis' page waits for the result through the JSON route below, then draws it.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { AnalysisView, IndicatorVerdict } from "../../services/analyses.ts";
import { sampleEntityId } from "../../services/analysis-entity.ts";
import { type AdminDeps, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { type Html, html } from "../html.ts";
import { ago, when } from "../layout.ts";
import { REPORT_SCRIPTS, reportSection } from "../report-view.ts";
import { analysesOf, panelViewer } from "./analyse.ts";
import { registerAnalysisShare, shareFact } from "./analysis-share.ts";

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

type Analysis = AnalysisView & { indicators: IndicatorVerdict[]; thumbnail?: boolean };

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB (${bytes} bytes)`;
}

function statusLine(a: Analysis): Html {
  if (a.status === "pending")
    return html`<span class="status processing" id="analysis-status">analysing…</span> <span class="spinner" aria-hidden="true"></span>`;
  if (a.status === "failed")
    return html`<span class="status failed" id="analysis-status">failed</span> <span class="bad small">${a.error?.detail ?? ""} (${a.error?.code ?? "failed"})</span>`;
  const cached = a.cached_from
    ? html` <span class="badge" title="analysis ${a.cached_from}">from storage, made ${a.age_seconds === null ? "" : ago(new Date(Date.now() - a.age_seconds * 1000).toISOString())}</span>`
    : "";
  return html`<span class="status ok" id="analysis-status">done</span>${cached}`;
}

function facts(deps: AdminDeps, a: Analysis, csrf: string): Html {
  return html`<dl class="facts analysis-facts">
  <dt>File</dt><dd class="subject">${a.name}</dd>
  <dt>SHA-256</dt><dd><code class="hash">${a.sha256}</code></dd>
  <dt>Size</dt><dd>${size(a.size)}</dd>
  <dt>Marking</dt><dd>TLP:${a.tlp} / PAP:${a.pap}</dd>
  <dt>Sent by</dt><dd>${a.user ?? "—"}, ${when(a.created)}</dd>
  <dt>Status</dt><dd>${statusLine(a)}</dd>
  ${shareFact(deps, a, csrf)}
</dl>`;
}

function actions(deps: AdminDeps, a: Analysis, inGraph: string | undefined): Html {
  const base = `${deps.prefix}/analyses/${encodeURIComponent(a.id)}`;
  const done = a.status === "done";
  return html`<p class="actions-row">
  <button type="button" id="enrich" data-url="${base}/enrich" ${done ? "" : html`disabled`}>Enrich indicators</button>
  <a class="button secondary" href="${base}/json?download=1" download>Download JSON</a>
  <a class="button secondary" id="graph-link" href="${inGraph ?? `${base}/graph`}" ${inGraph || a.indicators.length ? "" : html`hidden`}>In the graph</a>
</p>
<p id="enrich-status" class="muted small" role="status">${done ? `Enriching asks intel about the indicators with this file's marking (TLP:${a.tlp}, PAP:${a.pap}): a vendor the marking does not allow is never asked.` : ""}</p>`;
}

export function registerAnalysis(admin: App, deps: AdminDeps): void {
  admin.get<{ Params: { id: string } }>(
    "/analyses/:id",
    { schema: { params: Params } },
    async (req, reply) => {
      const json = await analysesOf(deps)
        .get(panelViewer(req), req.params.id)
        .catch(() => undefined);
      if (json === undefined)
        return redirectWithFlash(reply, deps, "/analyses", { kind: "error", text: "No such analysis." });
      const a = JSON.parse(json) as Analysis;
      const entity = await sampleEntityId(deps.services, a);
      const body = html`${facts(deps, a, signedIn(req).csrf)}
${actions(deps, a, entity ? `${deps.prefix}/entities/${entity}` : undefined)}
<div id="analysis-page" data-json="${deps.prefix}/analyses/${encodeURIComponent(a.id)}/json" data-status="${a.status}"></div>
${reportSection(json, { prefix: deps.prefix, thumbnail: a.thumbnail ? `${deps.prefix}/analyses/${encodeURIComponent(a.id)}/thumbnail` : undefined })}`;
      return sendPage(req, reply, deps, {
        title: `Analysis of ${a.name}`,
        active: "analyses",
        body,
        scripts: [...REPORT_SCRIPTS, "analysis.js"],
        deferScripts: true,
      });
    },
  );
  registerAnalysisCalls(admin, deps);
  registerAnalysisShare(admin, deps);
}

/** The page's calls: the analysis (also the download), its thumbnail, its enrichment, its file in the graph. */
function registerAnalysisCalls(admin: App, deps: AdminDeps): void {
  admin.get<{ Params: { id: string } }>(
    "/analyses/:id/thumbnail",
    { schema: { hide: true, params: Params } },
    async (req, reply) => {
      const png = await analysesOf(deps).thumbnail(panelViewer(req), req.params.id);
      return reply.type("image/png").header("cache-control", "private, max-age=3600").send(png);
    },
  );
  admin.get<{ Params: { id: string }; Querystring: { download?: string } }>(
    "/analyses/:id/json",
    {
      config: { adminJson: true },
      schema: {
        hide: true,
        params: Params,
        querystring: Type.Object({ download: Type.Optional(Type.String({ maxLength: 8 })) }),
      },
    },
    async (req, reply) => {
      const json = await analysesOf(deps).get(panelViewer(req), req.params.id);
      reply.header("cache-control", "no-store").type("application/json; charset=utf-8");
      if (req.query.download)
        reply.header("content-disposition", `attachment; filename="analysis-${req.params.id}.json"`);
      return reply.send(json);
    },
  );
  admin.post<{ Params: { id: string } }>(
    "/analyses/:id/enrich",
    { config: { adminJson: true }, schema: { hide: true, params: Params } },
    async (req, reply) =>
      reply
        .header("cache-control", "no-store")
        .send(await analysesOf(deps).enrich(panelViewer(req), req.params.id)),
  );
  admin.get<{ Params: { id: string } }>(
    "/analyses/:id/graph",
    { schema: { params: Params } },
    async (req, reply) => {
      const a = JSON.parse(await analysesOf(deps).get(panelViewer(req), req.params.id)) as Analysis;
      const entity = await sampleEntityId(deps.services, a);
      if (!entity)
        return redirectWithFlash(reply, deps, `/analyses/${encodeURIComponent(a.id)}`, {
          kind: "error",
          text: "This file is not in the graph yet: enrich its indicators first.",
        });
      return reply.redirect(`${deps.prefix}/entities/${entity}`, 303);
    },
  );
}
