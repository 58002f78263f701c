/**
 * Server-side paging and sorting for the panel's lists (Users, Requests, Entities): `?page=` and
 * `?sort=` with `?q=` kept across pages. A page asks the store for one row more than it shows, so
 * "Next" appears only when there is a next page, without counting every row.
 */
import { type TSchema, Type } from "typebox";
import { type Html, html } from "./html.ts";

/** Rows per page: a screenful at desktop width, and a cheap query however large the table grows. */
export const PAGE_SIZE = 50;

export const PageParam = Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 }));

/** `?sort=` as one of the page's named orders (anything else is a 400 from the schema). */
export function sortParam<K extends string>(orders: Record<K, string>): TSchema {
  return Type.Optional(Type.Union([Type.Literal(""), ...Object.keys(orders).map((k) => Type.Literal(k))]));
}

export function pageWindow(page: number | undefined, size = PAGE_SIZE) {
  const n = page ?? 1;
  return { n, size, limit: size + 1, offset: (n - 1) * size };
}

/** The sort select of a list's filter form. */
export function sortSelect<K extends string>(orders: Record<K, string>, current: K): Html {
  return html`<label>Sort <select name="sort">${(Object.entries(orders) as Array<[K, string]>).map(([k, label]) => html`<option value="${k}" ${k === current ? html`selected` : ""}>${label}</option>`)}</select></label>`;
}

/** "← Previous · Page n · Next →", each link keeping the list's filters. */
export function pager(params: Record<string, string | undefined>, n: number, more: boolean): Html {
  const kept = Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
  const at = (page: number) => `?${new URLSearchParams({ ...kept, page: String(page) }).toString()}`;
  if (n === 1 && !more) return html``;
  return html`<nav class="pager" aria-label="Pages">${n > 1 ? html`<a href="${at(n - 1)}" rel="prev">← Previous</a>` : ""} <span class="muted">Page ${n}</span> ${more ? html`<a href="${at(n + 1)}" rel="next">Next →</a>` : ""}</nav>`;
}
