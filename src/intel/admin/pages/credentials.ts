/**
 * Vendor credentials: a card per connector (configured or not, the fields it needs, its credential
 * sets with their last use), add and remove sets, and a "test" button making one harmless call.
 * Secrets are never shown again after they are saved: only their first characters.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import { connectorById } from "../../connectors/registry.ts";
import type { Connector } from "../../connectors/types.ts";
import { checkCredentials } from "../../domain/fanout.ts";
import { addCredentials, listCredentials, removeCredentials } from "../../store/credentials.ts";
import { type AdminDeps, field, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { html } from "../html.ts";
import { actionButton, csrfField, when } from "../layout.ts";

const VendorParams = Type.Object({ vendor: Type.String({ maxLength: 64 }) });
const SetParams = Type.Object({ vendor: Type.String({ maxLength: 64 }), id: Type.Integer({ minimum: 1 }) });

/** Fields that are addresses are shown whole; secrets by their first 4 characters. */
const mask = (name: string, value: string) => (name === "url" ? value : `${value.slice(0, 4)}…`);

export function registerCredentials(admin: App, deps: AdminDeps): void {
  const { db } = deps.services.store;
  const { connectors, config } = deps.services;

  admin.get("/credentials", async (req, reply) => {
    const { csrf } = signedIn(req);
    const all = await listCredentials(db);
    const cards = connectors.map((c) => {
      const sets = all.filter((s) => s.vendor === c.id);
      const keyless = c.credentialFields.length === 0;
      const lastUsed =
        sets
          .map((s) => s.last_used_at ?? "")
          .sort()
          .at(-1) || null;
      const base = `${deps.prefix}/credentials/${c.id}`;
      const state = keyless
        ? html`<span class="badge ok">no key needed</span>`
        : sets.length
          ? html`<span class="badge ok">configured · ${sets.length} set${sets.length > 1 ? "s" : ""}</span>`
          : html`<span class="badge bad">not configured</span>`;
      const rows = sets.map(
        (s) => html`<tr>
  <td>#${s.id}</td>
  <td>${Object.entries(s.fields).map(([k, v]) => html`<code>${k}=${mask(k, v)}</code> `)}</td>
  <td>${when(s.created_at)}</td><td>${when(s.last_used_at)}</td>
  <td class="actions">${actionButton(`${base}/${s.id}/test`, csrf, "Test")}
    ${actionButton(`${base}/${s.id}/remove`, csrf, "Remove", { danger: true, confirm: `Remove ${c.vendor} credentials #${s.id}?` })}</td>
</tr>`,
      );
      return html`<section class="card vendor" id="vendor-${c.id}">
  <header><h2>${c.vendor} <code>${c.id}</code></h2>${state}</header>
  <p class="muted">${c.description}</p>
  <p class="small">Looks up: ${c.supportedTypes.map((t) => t.type).join(", ")} · Needs: ${keyless ? "nothing" : c.credentialFields.join(", ")} · Last used: ${when(lastUsed)}</p>
  ${rows.length ? html`<table><thead><tr><th>Set</th><th>Fields</th><th>Added</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : ""}
  ${keyless ? actionButton(`${base}/test`, csrf, "Test") : addForm(c, base, csrf)}
</section>`;
    });
    const body = html`<p class="muted">Several sets per vendor are used in turn, least recently used first, to spread rate limits.</p>${cards}`;
    return sendPage(req, reply, deps, { title: "Vendor credentials", active: "credentials", body });
  });

  admin.post<{ Params: { vendor: string } }>(
    "/credentials/:vendor",
    { schema: { params: VendorParams } },
    async (req, reply) => {
      const c = connectorById(req.params.vendor, connectors);
      if (!c)
        return redirectWithFlash(reply, deps, "/credentials", { kind: "error", text: "Unknown vendor." });
      const fields = Object.fromEntries(c.credentialFields.map((f) => [f, field(req.body, f)]));
      const missing = c.credentialFields.filter((f) => !fields[f]);
      const badUrl =
        fields.url !== undefined && fields.url !== "" && !/^https?:\/\/[^\s/]+/i.test(fields.url);
      if (missing.length > 0 || badUrl) {
        const text = missing.length
          ? `${c.vendor} needs ${missing.join(", ")}.`
          : "url must be an http(s) address.";
        return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, { kind: "error", text });
      }
      const id = await addCredentials(db, c.id, fields);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, {
        kind: "ok",
        text: `Added ${c.vendor} credentials #${id}.`,
      });
    },
  );

  admin.post<{ Params: { vendor: string; id: number } }>(
    "/credentials/:vendor/:id/remove",
    { schema: { params: SetParams } },
    async (req, reply) => {
      const removed = await removeCredentials(db, req.params.id);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${req.params.vendor}`, {
        kind: removed ? "ok" : "error",
        text: removed ? `Removed credentials #${req.params.id}.` : `No credentials #${req.params.id}.`,
      });
    },
  );

  const test = async (c: Connector, fields: Record<string, string>) => {
    // One attempt, no retries: the button answers in seconds and says what the vendor said.
    const outcome = await checkCredentials(c, fields, { ...config, vendorRetries: 0 });
    return {
      kind: outcome.ok ? ("ok" as const) : ("error" as const),
      text: `${c.vendor} test ${outcome.ok ? "passed" : "failed"} in ${outcome.ms} ms: ${outcome.message}`,
    };
  };

  admin.post<{ Params: { vendor: string; id: number } }>(
    "/credentials/:vendor/:id/test",
    { schema: { params: SetParams } },
    async (req, reply) => {
      const c = connectorById(req.params.vendor, connectors);
      const set = (await listCredentials(db, req.params.vendor)).find((s) => s.id === req.params.id);
      if (!c || !set)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: "No such credentials.",
        });
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, await test(c, set.fields));
    },
  );

  admin.post<{ Params: { vendor: string } }>(
    "/credentials/:vendor/test",
    { schema: { params: VendorParams } },
    async (req, reply) => {
      const c = connectorById(req.params.vendor, connectors);
      if (!c || c.credentialFields.length > 0)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: "Pick a credential set to test.",
        });
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, await test(c, {}));
    },
  );
}

function addForm(c: Connector, base: string, csrf: string) {
  return html`<form method="post" action="${base}" class="row">
  ${csrfField(csrf)}
  ${c.credentialFields.map((f) =>
    f === "url"
      ? html`<label>${f} <input name="${f}" type="url" required placeholder="https://misp.example.org" autocomplete="off"></label>`
      : html`<label>${f} <input name="${f}" type="password" required autocomplete="off"></label>`,
  )}
  <button type="submit">Add credentials</button>
</form>`;
}
