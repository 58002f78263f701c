/**
 * What the panel tells a person about each vendor: a readable name for each credential field
 * (connectors name fields for code), and the vendor pages and verdict rules the Investigate page's
 * scripts read, taken as they are from each connector's definition (connectors/<id>/index.ts).
 */
import type { Connector, VendorPage, VerdictRule } from "../services/index.ts";

const FIELD_LABELS: Record<string, string> = {
  api_key: "API key",
  url: "Server address (https://…)",
};

export function fieldLabel(name: string): string {
  return FIELD_LABELS[name] ?? name.replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** What static/verdict.js needs of one vendor (embedded in the Investigate page as JSON). */
export interface PanelVendor {
  vendorPages: VendorPage[];
  verdict: VerdictRule | null;
}

/** The vendors' pages and verdict rules, by connector id, in registry order. */
export function panelVendors(connectors: Connector[]): Record<string, PanelVendor> {
  return Object.fromEntries(
    connectors.map((c) => [c.id, { vendorPages: c.vendorPages, verdict: c.verdict }]),
  );
}
