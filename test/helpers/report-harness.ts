/**
 * The report page's own HTML and scripts, without an intel server: a loopback HTTP server that
 * answers `/report/<name>` with the panel's layout around report-view.ts's section for a given
 * analysis JSON, and `/static/<asset>` with the panel's static files, under the panel's CSP. The
 * renderer's bench and its Chromium tests measure exactly what the panel serves.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { constants, gzipSync } from "node:zlib";
import { loadAsset } from "../../src/intel/admin/assets.ts";
import { page } from "../../src/intel/admin/layout.ts";
import { REPORT_SCRIPTS, reportSection } from "../../src/intel/admin/report-view.ts";

export const PANEL_CSP =
  "default-src 'self';img-src 'self' data:;style-src 'self' 'unsafe-inline';script-src 'self'";

export interface ReportHarness {
  url: string;
  /** Serves `json` (an analysis, or a bare files result) at `/report/<name>`. */
  add(name: string, json: string): string;
  close(): Promise<void>;
}

export async function startReportHarness(): Promise<ReportHarness> {
  const reports = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const [, kind, name] = url.pathname.split("/");
    res.setHeader("content-security-policy", PANEL_CSP);
    const json = kind === "report" ? reports.get(decodeURIComponent(name ?? "")) : undefined;
    const asset = kind === "static" ? loadAsset(name ?? "") : undefined;
    if (json !== undefined) {
      const body = page({
        prefix: "",
        title: "Report",
        session: { username: "bench", csrf: "bench" },
        body: reportSection(json, { prefix: "" }),
        scripts: REPORT_SCRIPTS,
        deferScripts: true,
      });
      // Gzipped at level 1 when Chromium accepts it, as the panel's onSend hook does (common/gzip.ts).
      const gzip = /gzip/.test(String(req.headers["accept-encoding"]));
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        ...(gzip ? { "content-encoding": "gzip" } : {}),
      });
      res.end(gzip ? gzipSync(body.value, { level: constants.Z_BEST_SPEED }) : body.value);
    } else if (asset) res.writeHead(200, { "content-type": asset.type }).end(asset.body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    add: (name, json) => {
      reports.set(name, json);
      return `${url}/report/${encodeURIComponent(name)}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
