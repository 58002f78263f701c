/**
 * The report of a file analysis as the page carries it: an empty `#report` that static/report.js
 * fills, and the analysis JSON beside it in a data block. The stored JSON text is embedded as it
 * is (with `<` escaped), never parsed and serialised again: a 1,000-node tree costs one copy.
 */
import { Html, html } from "./html.ts";

/** The scripts the report needs, in order (served by assets.ts). */
export const REPORT_SCRIPTS = [
  "report-model.js",
  "report-executable.js",
  "report-indicators.js",
  "report.js",
  "report-page.js",
];

/** JSON text for a `<script type="application/json">` block: `<` cannot close it (it only occurs inside strings). */
export function jsonTextScript(id: string, json: string): Html {
  return new Html(`<script type="application/json" id="${id}">${json.replace(/</g, "\\u003c")}</script>`);
}

export function reportSection(analysisJson: string, opts: { prefix: string; thumbnail?: string }): Html {
  return html`<div id="report" class="report" data-prefix="${opts.prefix}" data-thumbnail="${opts.thumbnail ?? ""}"></div>
${jsonTextScript("analysis", analysisJson)}`;
}
