/**
 * The export formats of a result document (`GET /api/request/<id>/?format=`), one row each: pure
 * functions of the document. A new format is one row here; the API's `format` values, their
 * description and the 400 message follow, and test/intel/export/formats.test.ts holds each row to
 * a validator and its tests (docs/architecture.md, "How to add an export format").
 */
import type { ResultDocument } from "../requests.ts";
import { toColanderFeed } from "./colander.ts";
import type { ExportContext } from "./graph.ts";
import { toMispEvent } from "./misp.ts";
import { toStixBundle } from "./stix.ts";

export type { ExportContext } from "./graph.ts";

export interface ExportFormatRow {
  /** The `format=` value; fixed once shipped (clients ask for it by name). */
  name: string;
  /** What the answer is, for the API's documentation: "a STIX 2.1 bundle". */
  description: string;
  contentType: string;
  render(doc: ResultDocument, ctx: ExportContext): unknown;
}

export const EXPORT_TABLE = [
  {
    name: "stix",
    description: "a STIX 2.1 bundle",
    contentType: "application/stix+json;version=2.1",
    render: toStixBundle,
  },
  { name: "misp", description: "a MISP event", contentType: "application/json", render: toMispEvent },
  {
    name: "colander",
    description: "a Colander feed",
    contentType: "application/json",
    render: toColanderFeed,
  },
] as const satisfies readonly ExportFormatRow[];

export type ExportFormat = (typeof EXPORT_TABLE)[number]["name"];

export const EXPORT_FORMATS: ExportFormat[] = EXPORT_TABLE.map((row) => row.name);

/** "`stix` (a STIX 2.1 bundle), `misp` (a MISP event), …": the formats as the API documents them. */
export const exportFormatsDescribed = (): string =>
  EXPORT_TABLE.map((row) => `\`${row.name}\` (${row.description})`).join(", ");

export interface Exported {
  contentType: string;
  body: unknown;
}

export function exportDocument(format: ExportFormat, doc: ResultDocument, ctx: ExportContext): Exported {
  const row: ExportFormatRow | undefined = EXPORT_TABLE.find((r) => r.name === format);
  if (!row) throw new Error(`no export format ${format}`);
  return { contentType: row.contentType, body: row.render(doc, ctx) };
}
