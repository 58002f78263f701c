/** The export formats of a result document (`GET /api/request/<id>/?format=`): pure functions of the document. */
import type { ResultDocument } from "../requests.ts";
import { toColanderFeed } from "./colander.ts";
import type { ExportContext } from "./graph.ts";
import { toMispEvent } from "./misp.ts";
import { toStixBundle } from "./stix.ts";

export type { ExportContext } from "./graph.ts";

export const EXPORT_FORMATS = ["stix", "misp", "colander"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface Exported {
  contentType: string;
  body: unknown;
}

const EXPORTERS: Record<ExportFormat, (doc: ResultDocument, ctx: ExportContext) => Exported> = {
  stix: (doc, ctx) => ({ contentType: "application/stix+json;version=2.1", body: toStixBundle(doc, ctx) }),
  misp: (doc, ctx) => ({ contentType: "application/json", body: toMispEvent(doc, ctx) }),
  colander: (doc, ctx) => ({ contentType: "application/json", body: toColanderFeed(doc, ctx) }),
};

export const exportDocument = (format: ExportFormat, doc: ResultDocument, ctx: ExportContext): Exported =>
  EXPORTERS[format](doc, ctx);
