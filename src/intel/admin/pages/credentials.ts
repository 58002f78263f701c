/**
 * Vendor credentials: a card per connector (configured or not, the fields it needs, its credential
 * sets with their last use), add and remove sets, and a "test" button making one harmless call.
 * Secrets are never shown again after they are saved: only their first characters.
 */
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import { connectorById } from "../../connectors/registry.ts";
import type { Connector, Credentials } from "../../connectors/types.ts";
import {
  addCredentialSet,
  type CredentialSetView,
  CredentialsError,
  listCredentialSets,
  removeCredentialSet,
  retestCredentialSet,
  testCredentials,
} from "../../services/credentials.ts";
import { type AdminDeps, field, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { html } from "../html.ts";
import { actionButton, csrfField, when } from "../layout.ts";
import { fieldLabel, KEY_PAGES } from "../vendors.ts";
import { audit } from "./audit.ts";

const VendorParams = Type.Object({ vendor: Type.String({ maxLength: 64 }) });
const SetParams = Type.Object({ vendor: Type.String({ maxLength: 64 }), id: Type.Integer({ minimum: 1 }) });

export function registerCredentials(admin: App, deps: AdminDeps): void {
  registerCredentialSets(admin, deps);
  registerCredentialTests(admin, deps);
}

/** The cards, and adding and removing sets. */
function registerCredentialSets(admin: App, deps: AdminDeps): void {
  const { db } = deps.services.store;
  const { connectors } = deps.services;

  admin.get("/credentials", async (req, reply) => {
    const { csrf } = signedIn(req);
    const all = await listCredentialSets(db);
    const cards = connectors.map((c) =>
      vendorCard(
        c,
        all.filter((set) => set.vendor === c.id),
        csrf,
        `${deps.prefix}/credentials/${c.id}`,
      ),
    );
    const body = html`${summary(connectors, all)}<p class="muted">Several sets per vendor are used in turn: the one with the most quota left first, then the one used longest ago.</p>${cards}`;
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
      let id: number;
      try {
        id = await addCredentialSet(db, c, fields);
        await audit(req, deps, "credentials.add", c.id, `set #${id}`);
      } catch (err) {
        if (!(err instanceof CredentialsError)) throw err;
        return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, {
          kind: "error",
          text: err.message,
        });
      }
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
      const removed = await removeCredentialSet(db, req.params.id);
      if (removed) await audit(req, deps, "credentials.remove", req.params.vendor, `set #${req.params.id}`);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${req.params.vendor}`, {
        kind: removed ? "ok" : "error",
        text: removed ? `Removed credentials #${req.params.id}.` : `No credentials #${req.params.id}.`,
      });
    },
  );
}

/** The Test buttons: one harmless call to the vendor with a saved set (or none, for keyless vendors). */
function registerCredentialTests(admin: App, deps: AdminDeps): void {
  const { db } = deps.services.store;
  const { connectors, config } = deps.services;
  const test = async (c: Connector, fields: Credentials) => {
    const outcome = await testCredentials(c, fields, config);
    return { kind: outcome.ok ? ("ok" as const) : ("error" as const), text: outcome.text };
  };

  admin.post<{ Params: { vendor: string; id: number } }>(
    "/credentials/:vendor/:id/test",
    { schema: { params: SetParams } },
    async (req, reply) => {
      const c = connectorById(req.params.vendor, connectors);
      const tested = c && (await retestCredentialSet(db, c, req.params.id, config));
      if (!c || !tested)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: "No such credentials.",
        });
      const outcome = { kind: tested.ok ? ("ok" as const) : ("error" as const), text: tested.text };
      await audit(
        req,
        deps,
        "credentials.test",
        c.id,
        `set #${req.params.id} ${outcome.kind === "ok" ? "passed" : "failed"}`,
      );
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, outcome);
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

/** "3 of 11 vendors configured", and a line of links to every card with its state. */
function summary(connectors: Connector[], sets: CredentialSetView[]) {
  const withSets = new Set(sets.map((s) => s.vendor));
  const ready = (c: Connector) => c.credentialFields.length === 0 || withSets.has(c.id);
  const keyless = connectors.filter((c) => c.credentialFields.length === 0).length;
  const count = connectors.filter(ready).length;
  return html`<div class="card summary" id="summary">
  <p><strong>${count} of ${connectors.length} vendors configured</strong>${keyless ? ` (${keyless} need${keyless === 1 ? "s" : ""} no key)` : ""}.</p>
  <ul class="chips">${connectors.map((c) => html`<li><a href="#vendor-${c.id}" class="${ready(c) ? "ok" : "bad"}">${c.vendor}</a></li>`)}</ul>
</div>`;
}

/** One vendor's card: its state, what it looks up, its credential sets and the add (or test) form. */
function vendorCard(c: Connector, sets: CredentialSetView[], csrf: string, base: string) {
  const keyless = c.credentialFields.length === 0;
  const lastUsed =
    sets
      .map((s) => s.last_used_at ?? "")
      .sort()
      .at(-1) || null;
  const state = keyless
    ? html`<span class="badge ok">no key needed</span>`
    : sets.length
      ? html`<span class="badge ok">configured · ${sets.length} set${sets.length > 1 ? "s" : ""}</span>`
      : html`<span class="badge bad">not configured</span>`;
  const rows = sets.map(
    (s) => html`<tr>
  <td>#${s.id}</td>
  <td>${Object.entries(s.masked).map(([k, v]) => html`${fieldLabel(k)}: <code>${v}</code> `)}</td>
  <td>${when(s.created_at)}</td><td>${when(s.last_used_at)}${s.disabled_reason ? html`<br><span class="bad" title="${s.disabled_reason}">out of rotation since ${when(s.failed_at)}: the vendor refused the key (Test to put it back)</span>` : ""}</td>
  <td class="actions">${actionButton(`${base}/${s.id}/test`, csrf, "Test")}
${actionButton(`${base}/${s.id}/remove`, csrf, "Remove", { danger: true, confirm: `Remove ${c.vendor} credentials #${s.id}?` })}</td>
</tr>`,
  );
  return html`<section class="card vendor" id="vendor-${c.id}">
  <header><h2>${c.vendor} <code>${c.id}</code></h2>${state}</header>
  <p class="muted">${c.description}</p>
  <p class="small">Looks up: ${c.supportedTypes.map((t) => t.type).join(", ")} · Needs: ${keyless ? "nothing" : c.credentialFields.map(fieldLabel).join(", ")} · Last used: ${when(lastUsed)}</p>
  ${KEY_PAGES[c.id] ? html`<p class="small">Get a key: <a href="${KEY_PAGES[c.id]}" rel="noopener noreferrer" target="_blank">${new URL(KEY_PAGES[c.id]!).host}</a></p>` : ""}
  ${rows.length ? html`<table><thead><tr><th>Set</th><th>Fields</th><th>Added</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : ""}
  ${keyless ? actionButton(`${base}/test`, csrf, "Test") : addForm(c, base, csrf)}
</section>`;
}

function addForm(c: Connector, base: string, csrf: string) {
  return html`<form method="post" action="${base}" class="row">
  ${csrfField(csrf)}
  ${c.credentialFields.map((f) =>
    f === "url"
      ? html`<label>${fieldLabel(f)} <input name="${f}" type="url" required placeholder="https://misp.example.org" autocomplete="off"></label>`
      : html`<label>${fieldLabel(f)} <input name="${f}" type="password" required autocomplete="off"></label>`,
  )}
  <button type="submit">Add credentials</button>
</form>`;
}
