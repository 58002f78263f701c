/**
 * A finished request's result in another format (STIX…): the request must have SUCCEEDED; its
 * subject's stored graph is exported as the result document shows it.
 */
import { HttpError, notFound } from "../../common/errors.ts";
import { type Exported, type ExportFormat, exportDocument } from "../domain/export/index.ts";
import type { IntelServices } from "./index.ts";

type Services = Pick<IntelServices, "requests" | "connectors">;

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

export async function exportRequest(
  services: Services,
  id: string,
  format: ExportFormat,
  depth: number,
): Promise<Exported> {
  const request = await services.requests.getRequest(id);
  if (!request) throw notFound(`No request ${id}.`);
  if (request.status !== "SUCCEEDED") throw notExportable(request.status, id);
  const subject = { superType: request.super_type, type: request.type, value: request.value };
  // Exports keep each entity's exact TLP 2.0 level (AMBER+STRICT), not Threatr's four words.
  const doc = await services.requests.document(subject, depth, { exactMarkings: true });
  if (!doc) throw notFound(`Nothing is stored any more for request ${id} (forgotten by retention).`);
  const vendorNames = Object.fromEntries(services.connectors.map((c) => [c.id, c.vendor]));
  return exportDocument(format, doc, { vendorNames });
}
