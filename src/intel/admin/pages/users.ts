/** Users (list, create, deactivate/reactivate, reset password) and each user's API keys (generate, revoke). */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../../../common/http.ts";
import {
  AccountError,
  accounts,
  createAccount,
  issueApiKey,
  resetPassword,
  setAccountActive,
  type UserOrder,
  type UserRow,
} from "../../services/accounts.ts";
import { type AdminDeps, field, redirectWithFlash, sendPage, signedIn } from "../context.ts";
import { html } from "../html.ts";
import { actionButton, csrfField, when } from "../layout.ts";
import { PageParam, pager, pageWindow, sortParam, sortSelect } from "../paging.ts";
import { audit } from "./audit.ts";

const ORDERS: Record<UserOrder, string> = {
  name: "by username",
  newest: "newest first",
  role: "admins first",
};
const UsersQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 150 })),
  sort: sortParam(ORDERS),
  page: PageParam,
});
const UserParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const TokenParams = Type.Object({ id: Type.Integer({ minimum: 1 }), token: Type.Integer({ minimum: 1 }) });

export function registerUsers(admin: App, deps: AdminDeps): void {
  registerUserList(admin, deps);
  registerUserState(admin, deps);
  registerUnlock(admin, deps);
  registerUserPage(admin, deps);
  registerUserKeys(admin, deps);
  registerPasswordReset(admin, deps);
}

/** The list of users and the form that creates one. */
function registerUserList(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: { q?: string; sort?: UserOrder | ""; page?: number } }>(
    "/users",
    { schema: { querystring: UsersQuery } },
    async (req, reply) => {
      const { csrf, user: me } = signedIn(req);
      const q = req.query.q?.trim() ?? "";
      const sort = req.query.sort || "name";
      const { n, size, limit, offset } = pageWindow(req.query.page);
      const found = await accounts.list(deps.services, { text: q, sort, limit, offset });
      const users = found.slice(0, size);
      const rows = users.map(
        (u) => html`<tr class="${u.is_active ? "" : "inactive"}">
  <td><a href="${deps.prefix}/users/${u.id}">${u.username}</a>${u.id === me.id ? html` <span class="badge">you</span>` : ""}</td>
  <td>${u.is_admin ? "admin" : "user"}</td>
  <td>${u.is_active ? html`<span class="ok">active</span>` : html`<span class="bad">deactivated</span>`}${lockBadge(deps, u.username)}</td>
  <td>${u.active_tokens}</td>
  <td>${when(u.created_at)}</td>
  <td class="actions"><a class="button secondary" href="${deps.prefix}/users/${u.id}">${u.is_admin ? "Keys and password" : "API keys"}</a>
    ${deps.throttle.lockedFor(u.username) === undefined ? "" : actionButton(`${deps.prefix}/users/${u.id}/unlock`, csrf, "Lift the lock")}
    ${u.id === me.id ? "" : actionButton(`${deps.prefix}/users/${u.id}/${u.is_active ? "deactivate" : "reactivate"}`, csrf, u.is_active ? "Deactivate" : "Reactivate", u.is_active ? { danger: true, confirm: `Deactivate ${u.username}? Their API keys stop working at once.` } : {})}</td>
</tr>`,
      );
      const body = html`
<form method="get" class="row filters">
  <label class="grow">Username contains <input name="q" value="${q}" autocomplete="off"></label>
  ${sortSelect(ORDERS, sort)}
  <button type="submit" class="secondary">Search</button>
</form>
${users.length === 0 ? html`<p class="muted">No user matches.</p>` : ""}
<table class="sortable"><thead><tr><th>Username</th><th>Role</th><th>State</th><th>Active keys</th><th>Created</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>
${pager({ q, sort }, n, found.length > size)}
<h2>New user</h2>
<form method="post" action="${deps.prefix}/users" class="card row">
  ${csrfField(csrf)}
  <label>Username <input name="username" required maxlength="150" pattern="[\\w.@+\\-]+" autocomplete="off"></label>
  <label class="check"><input type="checkbox" name="is_admin" value="1"> Admin (can use this panel)</label>
  <label>Admin's password <input name="password" type="password" minlength="8" autocomplete="new-password" placeholder="leave empty to generate one"></label>
  <button type="submit">Create user</button>
</form>
<p class="muted small" id="password-rule">Only admins have a password: it signs them in to this panel. Regular users (Colander, scripts) have none — they call the API with keys generated on their page.</p>`;
      return sendPage(req, reply, deps, { title: "Users", active: "users", body });
    },
  );

  admin.post("/users", async (req, reply) => {
    try {
      const { user: u, generatedPassword } = await createAccount(deps.services, {
        username: field(req.body, "username"),
        password: givenPassword(req.body),
        admin: field(req.body, "is_admin") === "1",
      });
      await audit(req, deps, "user.create", u.username, u.is_admin ? "admin" : "user");
      if (!u.is_admin)
        return redirectWithFlash(reply, deps, `/users/${u.id}`, {
          kind: "ok",
          text: `Created ${u.username}. Regular users have no password: generate an API key for them here.`,
        });
      if (!generatedPassword)
        return redirectWithFlash(reply, deps, "/users", { kind: "ok", text: `Created ${u.username}.` });
      return passwordShownOnce(req, reply, deps, u, generatedPassword, `Created ${u.username}.`);
    } catch (err) {
      if (err instanceof AccountError)
        return redirectWithFlash(reply, deps, "/users", { kind: "error", text: err.message });
      throw err;
    }
  });
}

/** Deactivate and reactivate. */
function registerUserState(admin: App, deps: AdminDeps): void {
  for (const [action, active] of [
    ["deactivate", false],
    ["reactivate", true],
  ] as const) {
    admin.post<{ Params: { id: number } }>(
      `/users/:id/${action}`,
      { schema: { params: UserParams } },
      async (req, reply) => {
        const user = await userOr404(req, reply, deps);
        if (!user) return reply;
        try {
          await setAccountActive(deps.services, signedIn(req).user.id, user.id, active);
          await audit(req, deps, active ? "user.reactivate" : "user.deactivate", user.username);
        } catch (err) {
          if (err instanceof AccountError)
            return redirectWithFlash(reply, deps, "/users", { kind: "error", text: err.message });
          throw err;
        }
        return redirectWithFlash(reply, deps, "/users", {
          kind: "ok",
          text: `${user.username} is ${active ? "active again" : "deactivated: their keys and sessions no longer work"}.`,
        });
      },
    );
  }
}

/** A locked-out username: shown, with the minutes left (failed logins lock it for a while). */
function lockBadge(deps: AdminDeps, username: string) {
  const ms = deps.throttle.lockedFor(username);
  if (ms === undefined) return "";
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return html` <span class="badge bad lock">locked out · ${minutes} min left</span>`;
}

/** An admin lifts a lock made by failed logins, rather than the user waiting it out. */
function registerUnlock(admin: App, deps: AdminDeps): void {
  admin.post<{ Params: { id: number } }>(
    "/users/:id/unlock",
    { schema: { params: UserParams } },
    async (req, reply) => {
      const user = await userOr404(req, reply, deps);
      if (!user) return reply;
      const lifted = deps.throttle.unlock(user.username);
      if (lifted) await audit(req, deps, "user.unlock", user.username, "login lock lifted");
      return redirectWithFlash(reply, deps, "/users", {
        kind: "ok",
        text: lifted ? `${user.username} can log in again.` : `${user.username} was not locked out.`,
      });
    },
  );
}

/** One user: their keys and the password form. */
function registerUserPage(admin: App, deps: AdminDeps): void {
  admin.get<{ Params: { id: number } }>(
    "/users/:id",
    { schema: { params: UserParams } },
    async (req, reply) => {
      const user = await userOr404(req, reply, deps);
      if (!user) return reply;
      const { csrf } = signedIn(req);
      const tokens = await accounts.keys(deps.services, user.id);
      const base = `${deps.prefix}/users/${user.id}`;
      const rows = tokens.map(
        (t) => html`<tr class="${t.revoked ? "inactive" : ""}">
  <td><code>${t.prefix}…</code></td>
  <td>${when(t.created_at)}</td>
  <td>${when(t.last_used_at)}</td>
  <td>${t.revoked ? html`<span class="bad">revoked</span>` : html`<span class="ok">active</span>`}</td>
  <td class="actions">${t.revoked ? "" : actionButton(`${base}/tokens/${t.id}/revoke`, csrf, "Revoke", { danger: true, confirm: `Revoke the key ${t.prefix}…? Clients using it get 401 at once.` })}</td>
</tr>`,
      );
      const body = html`
<p>${user.is_admin ? "Admin" : "User"} · ${user.is_active ? "active" : "deactivated"} · created ${when(user.created_at)}</p>
<h2>API keys</h2>
${tokens.length ? html`<table><thead><tr><th>Key</th><th>Created</th><th>Last used</th><th>State</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No API key yet.</p>`}
<form method="post" action="${base}/tokens" class="inline">${csrfField(csrf)}<button type="submit">Generate a new key</button></form>
${user.is_admin ? passwordForm(base, csrf) : html`<h2>Password</h2><p class="muted" id="no-password">None: regular users cannot sign in to the panel; they use the API keys above.</p>`}`;
      return sendPage(req, reply, deps, { title: `User ${user.username}`, active: "users", body });
    },
  );
}

/** Generate and revoke API keys. */
function registerUserKeys(admin: App, deps: AdminDeps): void {
  admin.post<{ Params: { id: number } }>(
    "/users/:id/tokens",
    { schema: { params: UserParams } },
    async (req, reply) => {
      const user = await userOr404(req, reply, deps);
      if (!user) return reply;
      const { key, prefix } = await issueApiKey(deps.services, { id: user.id });
      await audit(req, deps, "key.create", user.username, `key ${prefix}…`);
      // Shown in this answer only: the database keeps its hash.
      const body = html`
<div class="card secret">
  <p>The new API key of <strong>${user.username}</strong>. Copy it now: it is shown once and stored only as a hash.</p>
  <p><code id="new-key" class="key">${key}</code> <button type="button" class="secondary" data-copy="new-key">Copy</button></p>
  <p class="muted">Use it as <code>Authorization: Token ${prefix}…</code></p>
</div>
<p><a href="${deps.prefix}/users/${user.id}">Back to ${user.username}</a></p>`;
      return sendPage(req, reply, deps, { title: "New API key", active: "users", body });
    },
  );

  admin.post<{ Params: { id: number; token: number } }>(
    "/users/:id/tokens/:token/revoke",
    { schema: { params: TokenParams } },
    async (req, reply) => {
      const back = `/users/${req.params.id}`;
      const ok = await accounts.revokeKey(deps.services, req.params.id, req.params.token);
      const owner = ok ? await accounts.get(deps.services, req.params.id) : undefined;
      if (ok)
        await audit(
          req,
          deps,
          "key.revoke",
          owner?.username ?? `user #${req.params.id}`,
          `key #${req.params.token}`,
        );
      return redirectWithFlash(
        reply,
        deps,
        back,
        ok ? { kind: "ok", text: "Key revoked." } : { kind: "error", text: "No such key." },
      );
    },
  );
}

/** Set or generate a new password. */
function registerPasswordReset(admin: App, deps: AdminDeps): void {
  admin.post<{ Params: { id: number } }>(
    "/users/:id/password",
    { schema: { params: UserParams } },
    async (req, reply) => {
      const user = await userOr404(req, reply, deps);
      if (!user) return reply;
      let generatedPassword: string | undefined;
      try {
        ({ generatedPassword } = await resetPassword(deps.services, user.id, givenPassword(req.body)));
        await audit(req, deps, "user.password", user.username, generatedPassword ? "generated" : "set");
      } catch (err) {
        if (err instanceof AccountError)
          return redirectWithFlash(reply, deps, `/users/${user.id}`, { kind: "error", text: err.message });
        throw err;
      }
      if (user.id === signedIn(req).user.id) return reply.redirect(`${deps.prefix}/login`, 303);
      if (!generatedPassword)
        return redirectWithFlash(reply, deps, `/users/${user.id}`, { kind: "ok", text: "Password changed." });
      return passwordShownOnce(
        req,
        reply,
        deps,
        user,
        generatedPassword,
        `New password for ${user.username}.`,
      );
    },
  );
}

async function userOr404(
  req: FastifyRequest<{ Params: { id: number } }>,
  reply: FastifyReply,
  deps: AdminDeps,
): Promise<UserRow | undefined> {
  const user = await accounts.get(deps.services, req.params.id);
  if (!user) {
    await redirectWithFlash(reply, deps, "/users", { kind: "error", text: `No user #${req.params.id}.` });
    return undefined;
  }
  return user;
}

function passwordForm(base: string, csrf: string) {
  return html`<h2>Reset password</h2>
<form method="post" action="${base}/password" class="card row">
  ${csrfField(csrf)}
  <label>New password <input name="password" type="password" minlength="8" autocomplete="new-password" placeholder="leave empty to generate one"></label>
  <button type="submit">Reset password</button>
</form>
<p class="muted">A reset ends the admin's panel sessions. API keys keep working; revoke them above if needed.</p>`;
}

/** The password typed in a form; empty means "generate one". */
function givenPassword(body: unknown): string | undefined {
  const given = (body as Record<string, unknown>).password;
  return typeof given === "string" && given !== "" ? given : undefined;
}

function passwordShownOnce(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AdminDeps,
  user: UserRow,
  password: string,
  headline: string,
) {
  const body = html`
<div class="card secret">
  <p>${headline} The generated password is shown once:</p>
  <p><code id="new-password" class="key">${password}</code> <button type="button" class="secondary" data-copy="new-password">Copy</button></p>
</div>
<p><a href="${deps.prefix}/users/${user.id}">Go to ${user.username}</a> · <a href="${deps.prefix}/users">All users</a></p>`;
  return sendPage(req, reply, deps, { title: "Password", active: "users", body });
}
