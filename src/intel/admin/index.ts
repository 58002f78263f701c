/**
 * The admin panel, mounted at INTEL_BASE_URL/INTEL_ADMIN_PATH/ only: server-rendered pages behind a login,
 * server-side sessions in a signed HttpOnly SameSite=Strict cookie, a CSRF token on every form
 * and every state-changing call, and login throttling per user and per address.
 */

import formbody from "@fastify/formbody";
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../../common/errors.ts";
import { gzipText } from "../../common/gzip.ts";
import type { App } from "../../common/http.ts";
import type { IntelServices } from "../services/index.ts";
import { currentSession } from "../services/sessions.ts";
import { serveAsset } from "./assets.ts";
import { type AdminDeps, SESSION_COOKIE, sameToken, sendHtml } from "./context.ts";
import { html } from "./html.ts";
import { page } from "./layout.ts";
import { registerAnalyse } from "./pages/analyse.ts";
import { registerAnalysis } from "./pages/analysis.ts";
import { registerAudit } from "./pages/audit.ts";
import { registerCredentials } from "./pages/credentials.ts";
import { registerEntities } from "./pages/entities.ts";
import { registerHistory } from "./pages/history.ts";
import { registerInvestigate } from "./pages/investigate.ts";
import { registerLogin } from "./pages/login.ts";
import { registerRequestPage } from "./pages/request.ts";
import { registerRequests } from "./pages/requests.ts";
import { registerStatus } from "./pages/status.ts";
import { registerUsers } from "./pages/users.ts";
import { registerWebhooks } from "./pages/webhooks.ts";
import { LoginThrottle } from "./throttle.ts";

export function adminDeps(services: IntelServices): AdminDeps {
  const { config } = services;
  return {
    services,
    prefix: `/${services.adminPath}`,
    throttle: new LoginThrottle({
      failuresPerUser: config.adminLoginFailuresPerUser,
      failuresPerIp: config.adminLoginFailuresPerIp,
      windowMs: config.adminLoginLockoutSeconds * 1000,
    }),
    sessionTtlMs: config.adminSessionHours * 3_600_000,
    secureCookies: config.baseUrl.startsWith("https:"),
  };
}

/** The signed-in admin of this request's session cookie, if any (also lets a person browse /api/docs/). */
export async function loadSession(req: FastifyRequest, deps: AdminDeps): Promise<void> {
  const cookie = req.cookies[SESSION_COOKIE];
  if (!cookie) return;
  const unsigned = req.unsignCookie(cookie);
  if (!unsigned.valid || !unsigned.value) return;
  const s = await currentSession(deps.services, unsigned.value);
  if (s) req.adminSession = { id: unsigned.value, user: s.user, csrf: s.csrf };
}

export async function registerAdmin(app: App, deps: AdminDeps): Promise<void> {
  await app.register(
    async (admin) => {
      await admin.register(formbody, { bodyLimit: 64 * 1024 });
      admin.addHook("onRequest", async (req) => loadSession(req, deps));
      // Before validation: without a session nothing about a route, not even its schema errors, is revealed.
      admin.addHook("preValidation", async (req, reply) => guard(req, reply, deps));
      // The panel's pages are framed by nothing, and both framing headers say so (CSP wins where both are read).
      admin.addHook("onSend", async (_req, reply) => {
        reply.header("x-frame-options", "DENY");
        reply.header("content-security-policy", framedByNothing(reply.getHeader("content-security-policy")));
      });
      admin.addHook("onSend", gzipText);

      admin.get("/", { config: { adminPublic: true } }, async (_req, reply) =>
        reply.redirect(`${deps.prefix}/investigate`, 303),
      );
      admin.get<{ Params: { name: string } }>(
        "/static/:name",
        { config: { adminPublic: true }, schema: { hide: true } },
        serveAsset,
      );
      registerLogin(admin, deps);
      registerInvestigate(admin, deps);
      registerAnalyse(admin, deps);
      registerAnalysis(admin, deps);
      registerHistory(admin, deps);
      registerRequests(admin, deps);
      registerRequestPage(admin, deps);
      registerEntities(admin, deps);
      registerUsers(admin, deps);
      registerCredentials(admin, deps);
      registerStatus(admin, deps);
      registerAudit(admin, deps);
      registerWebhooks(admin, deps);
    },
    { prefix: deps.prefix },
  );
}

/** Every route but the public ones needs a session; every POST needs the session's CSRF token. */
async function guard(req: FastifyRequest, reply: FastifyReply, deps: AdminDeps) {
  const config = req.routeOptions.config;
  if (config.adminPublic) return;
  const json = config.adminJson === true;
  const session = req.adminSession;
  if (!session) {
    if (json) throw new HttpError(401, "not_logged_in", "Log in to the admin panel first.");
    const next = req.method === "GET" ? `?next=${encodeURIComponent(req.url)}` : "";
    return reply.redirect(`${deps.prefix}/login${next}`, 303);
  }
  if (req.method !== "POST") return;
  const sent = String(
    req.headers["x-csrf-token"] ?? (req.body as Record<string, unknown> | undefined)?.csrf ?? "",
  );
  if (sameToken(sent, session.csrf)) return;
  if (json) throw new HttpError(403, "csrf_failed", "The form's security token is missing or wrong.");
  return sendHtml(
    reply,
    page({
      prefix: deps.prefix,
      title: "Form expired",
      session: { username: session.user.username, csrf: session.csrf },
      flash: {
        kind: "error",
        text: "The form's security token is missing or wrong (csrf_failed). Nothing was changed: reload the page and try again.",
      },
      body: html`<p><a href="${deps.prefix}/">Back to the panel</a></p>`,
    }),
    403,
  );
}

/** The service's CSP with `frame-ancestors 'none'` in place of whatever it allowed. */
export function framedByNothing(policy: unknown): string {
  const directives = String(policy ?? "")
    .split(";")
    .map((d) => d.trim())
    .filter((d) => d && !/^frame-ancestors\b/i.test(d));
  return [...directives, "frame-ancestors 'none'"].join(";");
}
