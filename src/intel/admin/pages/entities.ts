/**
 * Entities: search by name and type; one entity's attributes, relations and events; setting its
 * TLP/PAP (the only way to lower a subject's marking, audited).
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import { MARKINGS } from "../../model/markings.ts";
import { SUPER_TYPES } from "../../model/taxonomy.ts";
import { type EntityOrder, entityDetail, parseAttributes, searchEntities } from "../../services/browse.ts";
import { MarkingError, markingLevel, setSubjectMarking } from "../../services/markings.ts";
import { type AdminDeps, field, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { type Html, html, safeHref } from "../html.ts";
import { csrfField, when } from "../layout.ts";
import { PageParam, pager, pageWindow, sortParam, sortSelect } from "../paging.ts";

const ORDERS: Record<EntityOrder, string> = {
  updated: "recently updated",
  name: "by name",
  type: "by type",
};

const Query = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 512 })),
  type: Type.Optional(Type.String({ maxLength: 64 })),
  sort: sortParam(ORDERS),
  page: PageParam,
});

const ALL_TYPES = [...new Set(SUPER_TYPES.flatMap((st) => st.types.map((t) => t.shortName)))].sort();

export function registerEntities(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: { q?: string; type?: string; sort?: EntityOrder | ""; page?: number } }>(
    "/entities",
    { schema: { querystring: Query } },
    async (req, reply) => {
      const text = req.query.q?.trim() ?? "";
      const type = req.query.type || undefined;
      const sort = req.query.sort || "updated";
      const { n, size, limit, offset } = pageWindow(req.query.page);
      const found = await searchEntities(deps.services, { text, type, sort, limit, offset });
      const rows = found.slice(0, size);
      const body = html`
<form method="get" class="row filters">
  <label class="grow">Name contains <input name="q" value="${text}" autocomplete="off"></label>
  <label>Type <select name="type"><option value="">any</option>${ALL_TYPES.map((t) => html`<option ${t === type ? html`selected` : ""}>${t}</option>`)}</select></label>
  ${sortSelect(ORDERS, sort)}
  <button type="submit" class="secondary">Search</button>
</form>
${
  rows.length === 0
    ? html`<p class="muted">No entity matches.</p>`
    : html`<table class="sortable"><thead><tr><th>Name</th><th>Type</th><th>Updated</th></tr></thead><tbody>
${rows.map((e) => html`<tr><td><a href="${deps.prefix}/entities/${e.id}">${e.name}</a></td><td>${e.super_type} / ${e.type}</td><td>${when(e.updated_at)}</td></tr>`)}
</tbody></table>`
}
${pager({ q: text, type, sort }, n, found.length > size)}`;
      return sendPage(req, reply, deps, { title: "Entities", active: "entities", body });
    },
  );

  admin.get<{ Params: { id: string } }>(
    "/entities/:id",
    { schema: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } },
    async (req, reply) => {
      const detail = await entityDetail(deps.services, req.params.id);
      if (!detail)
        return redirectWithFlash(reply, deps, "/entities", { kind: "error", text: "No such entity." });
      const { entity: e, links, events } = detail;
      const attributes = Object.entries(parseAttributes(e.attributes));
      const source = safeHref(e.source_url);
      const q = new URLSearchParams({ super_type: e.super_type, type: e.type, value: e.name });
      const body = html`
<dl class="facts">
  <dt>Type</dt><dd>${e.super_type} / ${e.type}</dd>
  <dt>Description</dt><dd>${e.description || html`<span class="muted">—</span>`}</dd>
  <dt>Source</dt><dd>${source ? html`<a href="${source}" rel="noopener noreferrer" target="_blank">${e.source_url}</a>` : e.source_url || html`<span class="muted">—</span>`}</dd>
  <dt>TLP / PAP</dt><dd>${e.tlp} / ${e.pap}</dd>
  <dt>Set TLP / PAP</dt><dd>${markingForm(deps, e, signedIn(req).csrf)}</dd>
  <dt>Created / updated</dt><dd>${when(e.created_at)} / ${when(e.updated_at)}</dd>
</dl>
<p><a class="button" href="${deps.prefix}/investigate?${q.toString()}">Investigate</a></p>
<h2>Attributes <span class="count">${attributes.length}</span></h2>
${attributes.length ? html`<table class="attributes"><tbody>${attributes.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table>` : html`<p class="muted">None.</p>`}
<h2>Relations <span class="count">${links.length}</span></h2>
${links.length ? html`<table><thead><tr><th>Relation</th><th>Entity</th><th>Type</th></tr></thead><tbody>${links.map((l) => html`<tr><td>${l.direction === "out" ? html`${l.relation} →` : html`← ${l.relation}`}</td><td><a href="${deps.prefix}/entities/${l.entity.id}">${l.entity.name}</a></td><td>${l.entity.super_type} / ${l.entity.type}</td></tr>`)}</tbody></table>` : html`<p class="muted">None.</p>`}
<h2>Events <span class="count">${events.length}</span></h2>
${events.length ? html`<table class="sortable"><thead><tr><th>Name</th><th>Type</th><th>First seen</th><th>Last seen</th><th>Count</th><th>Vendor</th></tr></thead><tbody>${events.map((ev) => html`<tr><td>${ev.name}</td><td>${ev.type}</td><td>${ev.first_seen}</td><td>${ev.last_seen}</td><td>${ev.count}</td><td>${ev.vendor}</td></tr>`)}</tbody></table>` : html`<p class="muted">None.</p>`}`;
      return sendPage(req, reply, deps, { title: e.name, active: "entities", body });
    },
  );
  registerMarking(admin, deps);
}

/** Levels to pick from, the entity's own selected (its stored WHITE is CLEAR). */
function levelSelect(name: string, current: string): Html {
  const now = current === "WHITE" ? "CLEAR" : current;
  return html`<select name="${name}">${MARKINGS.map((m) => html`<option ${m === now ? html`selected` : ""}>${m}</option>`)}</select>`;
}

function markingForm(deps: AdminDeps, e: { id: string; tlp: string; pap: string }, csrf: string): Html {
  return html`<form method="post" action="${deps.prefix}/entities/${e.id}/marking" class="row" data-confirm="Set this subject's TLP/PAP? A lower level lets it reach the vendors that level allows.">${csrfField(csrf)}
  <label>TLP ${levelSelect("tlp", e.tlp)}</label> <label>PAP ${levelSelect("pap", e.pap)}</label>
  <button type="submit" class="secondary">Set</button></form>`;
}

/** `POST /entities/:id/marking`: sets the entity's TLP and PAP (lower or higher), audited. */
function registerMarking(admin: App, deps: AdminDeps): void {
  admin.post<{ Params: { id: string } }>(
    "/entities/:id/marking",
    { schema: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } },
    async (req, reply) => {
      const detail = await entityDetail(deps.services, req.params.id);
      if (!detail)
        return redirectWithFlash(reply, deps, "/entities", { kind: "error", text: "No such entity." });
      const e = detail.entity;
      const back = `/entities/${e.id}`;
      try {
        const levels = {
          tlp: markingLevel("TLP", field(req.body, "tlp")),
          pap: markingLevel("PAP", field(req.body, "pap")),
        };
        const subject = { superType: e.super_type, type: e.type, value: e.name };
        const { after } = await setSubjectMarking(
          deps.services,
          signedIn(req).user.username,
          subject,
          levels,
        );
        return redirectWithFlash(reply, deps, back, {
          kind: "ok",
          text: `${e.name} is now TLP:${after.tlp} / PAP:${after.pap}.`,
        });
      } catch (err) {
        if (err instanceof MarkingError)
          return redirectWithFlash(reply, deps, back, { kind: "error", text: err.message });
        throw err;
      }
    },
  );
}
