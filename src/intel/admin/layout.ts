/** The page shell every admin page shares: navigation, the signed-in user, flash messages. */
import { VERSION } from "../../common/version.ts";
import { type Html, type HtmlValue, html } from "./html.ts";

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

export interface PageOptions {
  prefix: string;
  title: string;
  /** Which navigation entry is current. */
  active?: string;
  /** The signed-in admin and the CSRF token forms carry; absent on the login page. */
  session?: { username: string; csrf: string };
  flash?: Flash;
  body: HtmlValue;
  /** Extra scripts (served from the panel's static folder). */
  scripts?: string[];
  /**
   * Load the scripts from the head with `defer`: they download while a large body (a report's
   * embedded JSON) is parsed, and still run once it is, in order.
   */
  deferScripts?: boolean;
}

/** Every page of the panel's navigation: its path and its name (docs/admin.md names each one). */
export const NAV: ReadonlyArray<readonly [string, string]> = [
  ["investigate", "Investigate"],
  ["analyse", "Analyse"],
  ["analyses", "History"],
  ["requests", "Requests"],
  ["entities", "Entities"],
  ["users", "Users"],
  ["credentials", "Vendor credentials"],
  ["status", "Status"],
  ["audit", "Audit log"],
  ["webhooks", "Webhooks"],
];

export function page(o: PageOptions): Html {
  const scripts = (o.session ? ["admin.js", ...(o.scripts ?? [])] : []).map(
    (s) => html`<script src="${o.prefix}/static/${s}" ${o.deferScripts ? html`defer` : ""}></script>`,
  );
  const nav = o.session
    ? html`<nav aria-label="Sections">${NAV.map(
        ([path, label]) =>
          html`<a href="${o.prefix}/${path}" ${path === o.active ? html`aria-current="page"` : ""}>${label}</a>`,
      )}</nav>
      <form method="post" action="${o.prefix}/logout" class="logout">
        ${csrfField(o.session.csrf)}<span class="who">${o.session.username}</span>
        <button type="submit" class="link">Log out</button>
      </form>`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${o.session ? html`<meta name="csrf-token" content="${o.session.csrf}">` : ""}
<title>${o.title} · Loupe intel</title>
<link rel="stylesheet" href="${o.prefix}/static/admin.css">
<link rel="icon" href="${o.prefix}/static/favicon.svg" type="image/svg+xml">
${o.deferScripts ? scripts : ""}
</head>
<body>
<header><a class="brand" href="${o.prefix}/">Loupe <span>intel</span></a>${nav}</header>
<main>
<h1>${o.title}</h1>
${o.flash ? html`<p class="flash ${o.flash.kind}" role="status">${o.flash.text}</p>` : ""}
${o.body}
</main>
<footer>Loupe ${VERSION}</footer>
${o.deferScripts ? "" : scripts}
</body>
</html>`;
}

export const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;

/** A POST form with its CSRF token: one button, optionally a confirmation question. */
export function actionButton(
  action: string,
  csrf: string,
  label: string,
  opts: { danger?: boolean; confirm?: string } = {},
): Html {
  return html`<form method="post" action="${action}" class="inline" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ""}>${csrfField(csrf)}<button type="submit" class="${opts.danger ? "danger" : "secondary"}">${label}</button></form>`;
}

export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(0, 19).replace("T", " ")} UTC</time>`;
}

/** How long ago, in words ("just now", "3 min ago", "5 h ago", "2 days ago"), UTC on hover. */
export function ago(iso: string, now = Date.now()): Html {
  const minutes = Math.floor((now - Date.parse(iso)) / 60_000);
  const words =
    minutes < 1
      ? "just now"
      : minutes < 120
        ? `${minutes} min ago`
        : minutes < 2880
          ? `${Math.round(minutes / 60)} h ago`
          : `${Math.round(minutes / 1440)} days ago`;
  return html`<span class="ago" title="${iso.slice(0, 19).replace("T", " ")} UTC">${words}</span>`;
}
