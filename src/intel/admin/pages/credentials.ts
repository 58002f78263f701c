/**
 * Vendor credentials: a card per connector (configured or not, the fields it needs, its credential
 * sets with their last use and last test), add and remove sets, and "Test" buttons making one
 * harmless call — with a saved set (its outcome is kept) or with typed fields before they are saved
 * (nothing is kept). Secrets are never shown again after they are saved: only their first characters.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import type { Credentials } from "../../model/credentials.ts";
import {
  addCredentialSet,
  type CredentialSetView,
  CredentialsError,
  failedItsTest,
  listCredentialSets,
  removeCredentialSet,
  testCredentialSet,
  testCredentials,
  tryCredentials,
} from "../../services/credentials.ts";
import { type Connector, enabledConnector } from "../../services/index.ts";
import { type AdminDeps, field, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { type Html, html } from "../html.ts";
import { actionButton, ago, csrfField, type Flash, when } from "../layout.ts";
import { fieldLabel } from "../vendors.ts";
import { audit } from "./audit.ts";

const VendorParams = Type.Object({ vendor: Type.String({ maxLength: 64 }) });
const SetParams = Type.Object({ vendor: Type.String({ maxLength: 64 }), id: Type.Integer({ minimum: 1 }) });

/** Fields typed into a vendor's add form and tested before saving: the form shows them again. */
interface Tried {
  vendor: string;
  fields: Credentials;
}

export function registerCredentials(admin: App, deps: AdminDeps): void {
  registerCredentialSets(admin, deps);
  registerCredentialTests(admin, deps);
  registerTryBeforeSaving(admin, deps);
}

async function sendCredentialsPage(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AdminDeps,
  o: { flash?: Flash; tried?: Tried } = {},
): Promise<FastifyReply> {
  const { csrf } = signedIn(req);
  const { connectors } = deps.services;
  const all = await listCredentialSets(deps.services);
  const cards = connectors.map((c) =>
    vendorCard(c, {
      sets: all.filter((set) => set.vendor === c.id),
      csrf,
      base: `${deps.prefix}/credentials/${c.id}`,
      tried: o.tried?.vendor === c.id ? o.tried.fields : undefined,
    }),
  );
  const body = html`${summary(connectors, all)}<p class="muted">Several sets per vendor are used in turn: the one with the most quota left first, then the one used longest ago.</p>${cards}`;
  return sendPage(req, reply, deps, {
    title: "Vendor credentials",
    active: "credentials",
    body,
    flash: o.flash,
  });
}

/** The cards, and adding and removing sets. */
function registerCredentialSets(admin: App, deps: AdminDeps): void {
  admin.get("/credentials", async (req, reply) => sendCredentialsPage(req, reply, deps));

  admin.post<{ Params: { vendor: string } }>(
    "/credentials/:vendor",
    { schema: { params: VendorParams } },
    async (req, reply) => {
      const c = enabledConnector(deps.services, req.params.vendor);
      if (!c)
        return redirectWithFlash(reply, deps, "/credentials", { kind: "error", text: "Unknown vendor." });
      let id: number;
      try {
        id = await addCredentialSet(deps.services, c, formFields(c, req.body));
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
      // The set names its vendor: the URL's is only a label, and may say anything.
      const vendor = await removeCredentialSet(deps.services, req.params.id);
      if (vendor === undefined)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: `No credentials #${req.params.id}.`,
        });
      await audit(req, deps, "credentials.remove", vendor, `set #${req.params.id}`);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${encodeURIComponent(vendor)}`, {
        kind: "ok",
        text: `Removed credentials #${req.params.id}.`,
      });
    },
  );
}

const formFields = (c: Connector, body: unknown): Credentials =>
  Object.fromEntries(c.credentialFields.map((f) => [f, field(body, f)]));

const asFlash = (outcome: { ok: boolean; text: string }): Flash => ({
  kind: outcome.ok ? "ok" : "error",
  text: outcome.text,
});

/** The Test buttons of saved sets (the outcome is kept as the set's last test) and of keyless vendors. */
function registerCredentialTests(admin: App, deps: AdminDeps): void {
  const { config } = deps.services;

  admin.post<{ Params: { vendor: string; id: number } }>(
    "/credentials/:vendor/:id/test",
    { schema: { params: SetParams } },
    async (req, reply) => {
      const c = enabledConnector(deps.services, req.params.vendor);
      const outcome = c && (await testCredentialSet(deps.services, c, req.params.id, config));
      if (!c || !outcome)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: "No such credentials.",
        });
      const verdict = outcome.ok ? "passed" : "failed";
      await audit(req, deps, "credentials.test", c.id, `set #${req.params.id} ${verdict}`);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, asFlash(outcome));
    },
  );

  admin.post<{ Params: { vendor: string } }>(
    "/credentials/:vendor/test",
    { schema: { params: VendorParams } },
    async (req, reply) => {
      const c = enabledConnector(deps.services, req.params.vendor);
      if (!c || c.credentialFields.length > 0)
        return redirectWithFlash(reply, deps, "/credentials", {
          kind: "error",
          text: "Pick a credential set to test.",
        });
      const outcome = await testCredentials(c, {}, config);
      return redirectWithFlash(reply, deps, `/credentials#vendor-${c.id}`, asFlash(outcome));
    },
  );
}

/**
 * The add form's "Check before saving": the typed fields are tried against the vendor and the page
 * is rendered again (not redirected: the fields must not travel in a cookie) with the form still
 * filled, so the admin can press "Add credentials" next. Nothing is stored but the audit line.
 */
function registerTryBeforeSaving(admin: App, deps: AdminDeps): void {
  const { config } = deps.services;
  admin.post<{ Params: { vendor: string } }>(
    "/credentials/:vendor/try",
    { schema: { params: VendorParams } },
    async (req, reply) => {
      const c = enabledConnector(deps.services, req.params.vendor);
      if (!c || c.credentialFields.length === 0)
        return redirectWithFlash(reply, deps, "/credentials", { kind: "error", text: "Unknown vendor." });
      const fields = formFields(c, req.body);
      let outcome: { ok: boolean; text: string };
      try {
        outcome = await tryCredentials(c, fields, config);
      } catch (err) {
        if (!(err instanceof CredentialsError)) throw err;
        return sendCredentialsPage(req, reply, deps, { flash: { kind: "error", text: err.message } });
      }
      const verdict = outcome.ok ? "passed" : "failed";
      await audit(req, deps, "credentials.test", c.id, `unsaved set ${verdict}`);
      const flash = asFlash(outcome);
      flash.text += outcome.ok ? " Not saved yet: press Add credentials to keep it." : " Nothing was saved.";
      return sendCredentialsPage(req, reply, deps, { flash, tried: { vendor: c.id, fields } });
    },
  );
}

/** Ready to be asked: needs no key, or has a set that did not fail its last test. */
function isReady(c: Connector, sets: CredentialSetView[]): boolean {
  if (c.credentialFields.length === 0) return true;
  return sets.some((s) => s.vendor === c.id && !failedItsTest(s));
}

/** "3 of 11 vendors configured", and a line of links to every card with its state. */
function summary(connectors: Connector[], sets: CredentialSetView[]) {
  const keyless = connectors.filter((c) => c.credentialFields.length === 0).length;
  const count = connectors.filter((c) => isReady(c, sets)).length;
  const failing = connectors.filter((c) => !isReady(c, sets) && sets.some((s) => s.vendor === c.id)).length;
  return html`<div class="card summary" id="summary">
  <p><strong>${count} of ${connectors.length} vendors configured</strong>${keyless ? ` (${keyless} need${keyless === 1 ? "s" : ""} no key)` : ""}${failing ? `; ${failing} with credentials that failed their last test` : ""}.</p>
  <ul class="chips">${connectors.map((c) => html`<li><a href="#vendor-${c.id}" class="${isReady(c, sets) ? "ok" : "bad"}">${c.vendor}</a></li>`)}</ul>
</div>`;
}

/** The card's badge: what an admin needs to know at a glance, failed tests included. */
function cardState(c: Connector, sets: CredentialSetView[]): Html {
  if (c.credentialFields.length === 0) return html`<span class="badge ok">no key needed</span>`;
  if (sets.length === 0) return html`<span class="badge bad">not configured</span>`;
  const failed = sets.filter(failedItsTest);
  const plural = sets.length > 1 ? "s" : "";
  if (failed.length === sets.length) {
    const latest = failed
      .map((s) => s.last_check!.at)
      .sort()
      .at(-1)!;
    return html`<span class="badge bad">configured, last test failed ${ago(latest)}</span>`;
  }
  if (failed.length > 0)
    return html`<span class="badge warn">configured · ${sets.length} sets · ${failed.length} failed its last test</span>`;
  return html`<span class="badge ok">configured · ${sets.length} set${plural}</span>`;
}

function lastTest(s: CredentialSetView): Html {
  if (!s.last_check) return html`<span class="muted">never</span>`;
  const { ok, at, message } = s.last_check;
  return html`<span class="${ok ? "ok" : "bad"}">${ok ? "passed" : "failed"} ${ago(at)}</span>${ok ? "" : html`<br><span class="small">${message}</span>`}`;
}

/** One vendor's card: its state, what it looks up, its credential sets and the add (or test) form. */
function vendorCard(
  c: Connector,
  o: { sets: CredentialSetView[]; csrf: string; base: string; tried?: Credentials },
) {
  const { sets, csrf, base } = o;
  const keyless = c.credentialFields.length === 0;
  const lastUsed =
    sets
      .map((s) => s.last_used_at ?? "")
      .sort()
      .at(-1) || null;
  const rows = sets.map(
    (s) => html`<tr class="${failedItsTest(s) ? "failed" : ""}">
  <td>#${s.id}</td>
  <td>${Object.entries(s.masked).map(([k, v]) => html`${fieldLabel(k)}: <code>${v}</code> `)}</td>
  <td>${when(s.created_at)}</td><td>${when(s.last_used_at)}${s.disabled_reason ? html`<br><span class="bad" title="${s.disabled_reason}">out of rotation since ${when(s.failed_at)}: the vendor refused the key (Test to put it back)</span>` : ""}</td><td>${lastTest(s)}</td>
  <td class="actions">${actionButton(`${base}/${s.id}/test`, csrf, "Test")}
${actionButton(`${base}/${s.id}/remove`, csrf, "Remove", { danger: true, confirm: `Remove ${c.vendor} credentials #${s.id}?` })}</td>
</tr>`,
  );
  return html`<section class="card vendor" id="vendor-${c.id}">
  <header><h2>${c.vendor} <code>${c.id}</code></h2>${cardState(c, sets)}</header>
  <p class="muted">${c.description}</p>
  <p class="small">Looks up: ${c.supportedTypes.map((t) => t.type).join(", ")} · Needs: ${keyless ? "nothing" : c.credentialFields.map(fieldLabel).join(", ")} · Last used: ${when(lastUsed)}</p>
  ${c.keyPage ? html`<p class="small">Get a key: <a href="${c.keyPage}" rel="noopener noreferrer" target="_blank">${new URL(c.keyPage).host}</a></p>` : ""}
  ${rows.length ? html`<table><thead><tr><th>Set</th><th>Fields</th><th>Added</th><th>Last used</th><th>Last test</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : ""}
  ${keyless ? actionButton(`${base}/test`, csrf, "Test") : addForm(c, base, csrf, o.tried)}
</section>`;
}

/**
 * Adding a set, with a "Check before saving" button posting the same fields elsewhere. After such a
 * test the fields come back filled (`tried`): this page is sent with no-store, to the admin who typed them.
 */
function addForm(c: Connector, base: string, csrf: string, tried?: Credentials) {
  return html`<form method="post" action="${base}" class="row add-credentials">
  ${csrfField(csrf)}
  ${c.credentialFields.map((f) =>
    f === "url"
      ? html`<label>${fieldLabel(f)} <input name="${f}" type="url" required placeholder="https://misp.example.org" autocomplete="off" value="${tried?.[f] ?? ""}"></label>`
      : html`<label>${fieldLabel(f)} <input name="${f}" type="password" required autocomplete="off" value="${tried?.[f] ?? ""}"></label>`,
  )}
  <button type="submit" class="secondary" formaction="${base}/try#vendor-${c.id}">Check before saving</button>
  <button type="submit">Add credentials</button>
</form>`;
}
