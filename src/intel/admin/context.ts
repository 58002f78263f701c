/**
 * What every admin page needs: the services, the panel's URL prefix, and the small helpers that
 * answer with a page, redirect with a flash message, and read the signed-in session.
 */
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Analyses } from "../services/analyses.ts";
import type { IntelServices } from "../services/index.ts";
import type { Html } from "./html.ts";
import { type Flash, type PageOptions, page } from "./layout.ts";
import type { LoginThrottle } from "./throttle.ts";

export interface AdminDeps {
  services: IntelServices;
  /** "/<INTEL_ADMIN_PATH>", no trailing slash. */
  prefix: string;
  throttle: LoginThrottle;
  sessionTtlMs: number;
  /** Cookies get `Secure` when INTEL_BASE_URL is https. */
  secureCookies: boolean;
  /** Files analyses (the Analyse, report and History pages); absent, those pages say so. */
  analyses?: Analyses;
}

export interface SignedIn {
  /** The cookie's session id (the database keeps only its hash). */
  id: string;
  user: { id: number; username: string };
  csrf: string;
}

declare module "fastify" {
  interface FastifyRequest {
    adminSession?: SignedIn;
  }
  interface FastifyContextConfig {
    /** Reachable without a session (login page, static assets). */
    adminPublic?: boolean;
    /** Answers JSON (401/403 as JSON rather than a redirect or a page). */
    adminJson?: boolean;
  }
}

export const SESSION_COOKIE = "loupe_session";
const FLASH_COOKIE = "loupe_flash";

export function signedIn(req: FastifyRequest): SignedIn {
  if (!req.adminSession) throw new Error("admin route reached without a session");
  return req.adminSession;
}

export function sendHtml(reply: FastifyReply, body: Html, status = 200): FastifyReply {
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8")
    .send(body.value);
}

/** Renders a page of the panel for the signed-in admin, with any flash message left by a redirect. */
export function sendPage(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AdminDeps,
  o: Omit<PageOptions, "prefix" | "session">,
  status = 200,
): FastifyReply {
  const s = req.adminSession;
  const flash = o.flash ?? takeFlash(req, reply, deps);
  return sendHtml(
    reply,
    page({
      ...o,
      flash,
      prefix: deps.prefix,
      session: s ? { username: s.user.username, csrf: s.csrf } : undefined,
    }),
    status,
  );
}

/** POST-redirect-GET: the message survives the redirect in a short-lived signed cookie. */
export function redirectWithFlash(
  reply: FastifyReply,
  deps: AdminDeps,
  to: string,
  flash: Flash,
): FastifyReply {
  reply.setCookie(FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString("base64url"), {
    path: deps.prefix,
    httpOnly: true,
    sameSite: "strict",
    secure: deps.secureCookies,
    signed: true,
    maxAge: 60,
  });
  return reply.redirect(`${deps.prefix}${to}`, 303);
}

function takeFlash(req: FastifyRequest, reply: FastifyReply, deps: AdminDeps): Flash | undefined {
  const cookie = req.cookies[FLASH_COOKIE];
  if (!cookie) return undefined;
  reply.clearCookie(FLASH_COOKIE, { path: deps.prefix });
  const unsigned = req.unsignCookie(cookie);
  if (!unsigned.valid || !unsigned.value) return undefined;
  try {
    const f = JSON.parse(Buffer.from(unsigned.value, "base64url").toString("utf8")) as Flash;
    return (f.kind === "ok" || f.kind === "error") && typeof f.text === "string" ? f : undefined;
  } catch {
    return undefined;
  }
}

/** A form field as a trimmed string ("" when absent or not a string). */
export function field(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === "string" ? v.trim() : "";
}

/** Constant-time comparison of a submitted CSRF token with the expected one. */
export function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}
