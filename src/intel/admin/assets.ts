/**
 * The panel's static files: our stylesheet and scripts, and Mermaid's browser bundle from its npm
 * package (served locally: the panel never loads anything from another origin). Read once,
 * gzipped once (common/gzip.ts), served with a version-stamped cache policy.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendBytes } from "../../common/gzip.ts";

export interface Asset {
  type: string;
  body: Buffer;
}

const SOURCES: Record<string, { url: URL | string; type: string }> = {
  "admin.css": { url: new URL("./static/admin.css", import.meta.url), type: "text/css; charset=utf-8" },
  "admin.js": { url: new URL("./static/admin.js", import.meta.url), type: "text/javascript; charset=utf-8" },
  "investigate.js": {
    url: new URL("./static/investigate.js", import.meta.url),
    type: "text/javascript; charset=utf-8",
  },
  "detect.js": {
    url: new URL("./static/detect.js", import.meta.url),
    type: "text/javascript; charset=utf-8",
  },
  "verdict.js": {
    url: new URL("./static/verdict.js", import.meta.url),
    type: "text/javascript; charset=utf-8",
  },
  "graph.js": { url: new URL("./static/graph.js", import.meta.url), type: "text/javascript; charset=utf-8" },
  "graph-groups.js": {
    url: new URL("./static/graph-groups.js", import.meta.url),
    type: "text/javascript; charset=utf-8",
  },
  ...Object.fromEntries(
    [
      "report-model.js",
      "report-executable.js",
      "report-indicators.js",
      "report.js",
      "report-page.js",
      "analysis.js",
      "analyse.js",
    ].map((name) => [
      name,
      { url: new URL(`./static/${name}`, import.meta.url), type: "text/javascript; charset=utf-8" },
    ]),
  ),
  "favicon.svg": { url: new URL("./static/favicon.svg", import.meta.url), type: "image/svg+xml" },
  "mermaid.min.js": {
    url: import.meta.resolve("mermaid/dist/mermaid.min.js"),
    type: "text/javascript; charset=utf-8",
  },
};

const cache = new Map<string, Asset>();

/** A static file's bytes and content type, or undefined for a name the panel does not serve. */
export function loadAsset(name: string): Asset | undefined {
  const source = SOURCES[name];
  if (!source) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    const body = readFileSync(fileURLToPath(source.url));
    asset = { type: source.type, body };
    cache.set(name, asset);
  }
  return asset;
}

export function serveAsset(req: FastifyRequest<{ Params: { name: string } }>, reply: FastifyReply) {
  const asset = loadAsset(req.params.name);
  if (!asset) return reply.code(404).send({ detail: `No asset ${req.params.name}.`, code: "not_found" });
  return sendBytes(req, reply.type(asset.type).header("cache-control", "private, max-age=300"), asset.body);
}
