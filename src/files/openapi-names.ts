/**
 * Names in the files service's OpenAPI document, chosen so a client generated from it matches
 * mandolin-python-client: Mandolin's document was made by FastAPI, so operation ids, tags and
 * component names follow FastAPI's rules (`analyze_with_tika_analyzer_tika_post`,
 * `Analysis_TikaResult_`, `Body_…`) for Mandolin's routes and Loupe's own alike.
 */
import { type TObject, Type } from "typebox";
import type { App } from "../common/http.ts";
import { thumbnailStrategySchema } from "./converters/thumbnail.ts";
import { entrySchema, type Processor, resultSchema } from "./processors/processor.ts";
import { yaraComponents } from "./processors/schemas.ts";

/** FastAPI's `generate_unique_id`: handler name + path, non-word characters as `_`, + method. */
export function fastapiOperationId(handler: string, url: string, method: string): string {
  const name = `${handler}${url}`.replace(/\W/g, "_");
  return `${name}_${method.toLowerCase()}`;
}

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

interface AnalyzerNames {
  operationId: string;
  /** The analysis itself (`TikaResult`), one processor entry, the whole answer, the form body. */
  result: string;
  entry: string;
  answer: string;
  body: string;
}

function analyzerNames(processor: Pick<Processor, "name">): AnalyzerNames {
  const operationId = fastapiOperationId(
    `analyze_with_${processor.name}`,
    `/analyzer/${processor.name}`,
    "POST",
  );
  const result = `${capitalised(processor.name)}Result`;
  return {
    operationId,
    result,
    entry: `AnalyzerResult_${result}_`,
    answer: `Analysis_${result}_`,
    body: `Body_${operationId}`,
  };
}

/**
 * Registers an analyzer's component schemas (Fastify shared schemas become OpenAPI components)
 * and returns the references its route uses. The answer keeps Mandolin's `processors` dict.
 */
export function addAnalyzerComponents(app: App, processor: Processor, body: TObject) {
  const names = analyzerNames(processor);
  app.addSchema({ ...processor.analysisSchema, $id: names.result });
  app.addSchema({ ...entrySchema(processor, Type.Ref(names.result)), $id: names.entry });
  app.addSchema({ ...resultSchema(Type.Ref(names.entry)), $id: names.answer });
  app.addSchema({ ...body, $id: names.body });
  return { operationId: names.operationId, answer: Type.Ref(names.answer), body: Type.Ref(names.body) };
}

/** Schemas routes share by name (the parts of a YARA result, the thumbnail strategy), registered once. */
export function addSharedComponents(app: App): void {
  for (const schema of [...yaraComponents, thumbnailStrategySchema]) app.addSchema(schema);
}

/** Operations that are not analyzers, by route: FastAPI's handler names in Mandolin. */
const OTHER_OPERATIONS: Record<string, { handler: string; tags?: string[] }> = {
  "GET /": { handler: "root" },
  "POST /converter/thumbnail": { handler: "generate_thumbnail", tags: ["converters"] },
};

/**
 * Names the operations of routes registered after this call that have no id of their own
 * (the health check and the thumbnail converter), without touching their route code.
 */
export function nameOtherOperations(app: App): void {
  app.addHook("onRoute", (route) => {
    const method = [route.method].flat()[0] ?? "";
    const known = OTHER_OPERATIONS[`${method} ${route.url}`];
    if (!known || !route.schema || route.schema.operationId) return;
    route.schema.operationId = fastapiOperationId(known.handler, route.url, method);
    if (known.tags) route.schema.tags = known.tags;
  });
}
