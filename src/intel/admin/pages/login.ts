/** Login and logout. Only active admin users get in; failures are throttled per username and address. */
import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../../../common/http.ts";
import { signIn, signOut } from "../../services/sessions.ts";
import { type AdminDeps, field, SESSION_COOKIE, sameToken, sendHtml, signedIn } from "../context.ts";
import { html } from "../html.ts";
import { csrfField, type Flash, page } from "../layout.ts";

const LOGIN_COOKIE = "loupe_login";

export function registerLogin(admin: App, deps: AdminDeps): void {
  admin.get<{ Querystring: { next?: string } }>(
    "/login",
    { config: { adminPublic: true } },
    async (req, reply) => loginPage(req, reply, deps, req.query.next ?? ""),
  );

  admin.post("/login", { config: { adminPublic: true } }, async (req, reply) => {
    const username = field(req.body, "username");
    const password = (req.body as Record<string, unknown> | undefined)?.password;
    const next = field(req.body, "next");
    const cookie = req.unsignCookie(req.cookies[LOGIN_COOKIE] ?? "");
    if (!cookie.valid || !sameToken(field(req.body, "csrf"), cookie.value ?? "")) {
      return loginPage(req, reply, deps, next, 403, username, {
        kind: "error",
        text: "The login form expired (csrf_failed). Please try again.",
      });
    }
    // Counted before the password hash runs, so concurrent guesses all see each other.
    const blocked = deps.throttle.reserve(req.ip, username);
    if (blocked) {
      const minutes = Math.max(1, Math.ceil(blocked.retryInMs / 60_000));
      const who = blocked.reason === "user" ? "this username" : "your address";
      return loginPage(req, reply, deps, next, 429, username, {
        kind: "error",
        text: `Too many failed logins for ${who}. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      });
    }
    const session =
      username && typeof password === "string"
        ? await signIn(deps.services, username, password, deps.sessionTtlMs)
        : undefined;
    if (!session) {
      return loginPage(req, reply, deps, next, 401, username, {
        kind: "error",
        text: "Wrong username or password, or not an active admin account.",
      });
    }
    deps.throttle.succeeded(req.ip, username);
    reply.clearCookie(LOGIN_COOKIE, { path: deps.prefix });
    reply.setCookie(SESSION_COOKIE, session.id, {
      // Path "/" so the same session also opens the API docs at /api/docs/.
      path: "/",
      httpOnly: true,
      sameSite: "strict",
      secure: deps.secureCookies,
      signed: true,
      maxAge: Math.floor(deps.sessionTtlMs / 1000),
    });
    return reply.redirect(safeNext(next, deps.prefix), 303);
  });

  admin.post("/logout", async (req, reply) => {
    await signOut(deps.services, signedIn(req).id);
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return reply.redirect(`${deps.prefix}/login`, 303);
  });
}

/** Only a path inside the panel: a login must never redirect to another site. */
function safeNext(next: string, prefix: string): string {
  return next.startsWith(`${prefix}/`) && !next.includes("//", 1) && !next.includes("\\")
    ? next
    : `${prefix}/investigate`;
}

function loginPage(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AdminDeps,
  next: string,
  status = 200,
  username = "",
  flash?: Flash,
): FastifyReply {
  if (req.adminSession && status === 200) return reply.redirect(safeNext(next, deps.prefix), 303);
  // A fresh token per form shown: the POST must carry the same value as this signed cookie.
  const token = randomBytes(24).toString("base64url");
  reply.setCookie(LOGIN_COOKIE, token, {
    path: deps.prefix,
    httpOnly: true,
    sameSite: "strict",
    secure: deps.secureCookies,
    signed: true,
    maxAge: 3600,
  });
  const body = html`<form method="post" action="${deps.prefix}/login" class="card narrow">
  ${csrfField(token)}
  <input type="hidden" name="next" value="${next}">
  <label>Username <input name="username" autocomplete="username" required value="${username}" ${username ? "" : html`autofocus`}></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required ${username ? html`autofocus` : ""}></label>
  <button type="submit">Log in</button>
</form>
<p class="muted narrow">Admin accounts are made with <code>./loupe intel user create --username NAME --admin</code>.</p>`;
  return sendHtml(reply, page({ prefix: deps.prefix, title: "Log in", flash, body }), status);
}
