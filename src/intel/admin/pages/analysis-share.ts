/**
 * Sharing an analysis from its report page: only administrators reach the panel, and the rule
 * (only an administrator shares; a regular user's key then sees it) is the analyses service's,
 * the same as `POST /api/analyses/<id>/share/`. A plain form with the CSRF field: no script needed.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { AnalysisView } from "../../services/analyses.ts";
import { type AdminDeps, field, redirectWithFlash } from "../context.ts";
import { type Html, html } from "../html.ts";
import { csrfField } from "../layout.ts";
import { analysesOf, panelViewer } from "./analyse.ts";

/** The "Shared" fact of a report: whether every user sees it, and the button that changes it. */
export function shareFact(deps: AdminDeps, a: AnalysisView, csrf: string): Html {
  const action = `${deps.prefix}/analyses/${encodeURIComponent(a.id)}/share`;
  const state = a.shared
    ? html`<span id="analysis-shared" class="badge">shared with every user</span>`
    : html`<span id="analysis-shared" class="muted">no — its owner and administrators only</span>`;
  return html`<dt>Shared</dt><dd>${state}
<form method="post" action="${action}" class="inline" id="share-form">${csrfField(csrf)}<input type="hidden" name="shared" value="${a.shared ? "0" : "1"}"><button type="submit" class="secondary">${a.shared ? "Stop sharing" : "Share with every user"}</button></form></dd>`;
}

export function registerAnalysisShare(admin: App, deps: AdminDeps): void {
  admin.post<{ Params: { id: string } }>(
    "/analyses/:id/share",
    { schema: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } },
    async (req, reply) => {
      const shared = field(req.body, "shared") !== "0";
      const a = await analysesOf(deps).share(panelViewer(req), req.params.id, shared);
      return redirectWithFlash(reply, deps, `/analyses/${encodeURIComponent(a.id)}`, {
        kind: "ok",
        text: shared
          ? `${a.name} is shared: every user's key sees it.`
          : `${a.name} is no longer shared: its owner and administrators only.`,
      });
    },
  );
}
