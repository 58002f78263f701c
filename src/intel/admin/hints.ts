/**
 * First-run hints: a fresh install has no vendor key, and a lookup then quietly returns the
 * subject alone. Investigate and Status say so, with a link to Vendor credentials. Keyless vendors
 * count as usable, so the hint says "only keyless vendors" rather than pretending none can answer.
 */
import { usableConnectors } from "../services/credentials.ts";
import type { AdminDeps } from "./context.ts";
import { type Html, html } from "./html.ts";

export async function vendorHint(deps: AdminDeps): Promise<Html | ""> {
  const { connectors } = deps.services;
  const keyed = connectors.filter((c) => c.credentialFields.length > 0);
  // Every enabled vendor is keyless: there is nothing to configure, so nothing to hint at.
  if (keyed.length === 0) return "";
  const usable = await usableConnectors(deps.services, connectors);
  if (usable.some((c) => c.credentialFields.length > 0)) return "";
  const link = html`<a href="${deps.prefix}/credentials">Vendor credentials</a>`;
  const keyless = usable.map((c) => c.vendor);
  const text =
    keyless.length === 0
      ? html`<strong>No vendor is configured.</strong> A lookup now returns the subject alone. Add a key for at least one of the ${keyed.length} vendors in ${link}.`
      : html`<strong>No vendor with a key is configured: only keyless vendors</strong> (${keyless.join(", ")}) are asked. Add a key for at least one of the other ${keyed.length} vendors in ${link}.`;
  return html`<p class="flash hint" id="vendor-hint" role="note">${text}</p>`;
}
