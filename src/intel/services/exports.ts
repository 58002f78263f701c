/**
 * A finished request's result in another format (STIX…): the request must have SUCCEEDED; its
 * subject's stored graph is exported as the result document shows it.
 */
import { MIMEType } from "node:util";
import { HttpError, notFound } from "../../common/errors.ts";
import type { ExportFormat } from "../domain/export/index.ts";

// The formats a door may offer (the API's `format` values and their description), from EXPORT_TABLE.
export { EXPORT_FORMATS, exportFormatsDescribed } from "../domain/export/index.ts";

import type { Rendered } from "../domain/rendered-cache.ts";
import { graphVersion } from "../store/requests.ts";
import type { IntelServices } from "./index.ts";

type Services = Pick<IntelServices, "requests" | "connectors" | "renderer" | "store">;

/** 409: the request has no result to export (yet, or ever). */
function notExportable(status: string, id: string): HttpError {
  const running = status === "ENQUEUED" || status === "PROCESSING" || status === "CREATED";
  return new HttpError(
    409,
    running ? "request_not_finished" : "request_not_succeeded",
    running
      ? `Request ${id} is ${status}: ask again when it has SUCCEEDED.`
      : `Request ${id} ended ${status}: there is no result to export.`,
    { status },
  );
}

/**
 * The export's bytes, rendered off the event loop (domain/renderer.ts) and kept while the graph
 * does not change: asked again, the same bytes are sent.
 */
export async function exportRequest(
  services: Services,
  id: string,
  format: ExportFormat,
  depth: number,
): Promise<Rendered> {
  const request = await services.requests.getRequest(id);
  if (!request) throw notFound(`No request ${id}.`);
  if (request.status !== "SUCCEEDED") throw notExportable(request.status, id);
  const subject = { superType: request.super_type, type: request.type, value: request.value };
  const vendorNames = Object.fromEntries(services.connectors.map((c) => [c.id, c.vendor]));
  const version = await graphVersion(services.store.db);
  const exported = await services.renderer.exported(subject, depth, format, { vendorNames }, version);
  if (!exported) throw notFound(`Nothing is stored any more for request ${id} (forgotten by retention).`);
  return { bytes: exported.bytes, contentType: withCharset(exported.contentType) };
}

/**
 * A JSON media type as Fastify writes it for a JSON string (parameters quoted, `charset=utf-8`
 * added), so answering bytes changes nothing on the wire: `application/stix+json; version="2.1"; …`.
 */
function withCharset(contentType: string): string {
  const type = new MIMEType(contentType);
  const params = [...type.params].filter(([key]) => key !== "charset").map(([k, v]) => `${k}="${v}"`);
  return [type.essence, ...params, "charset=utf-8"].join("; ");
}
