/**
 * Reading a service's OpenAPI document as a client does: its operations, a field's schema (through
 * `$ref`s), whether a status and a code are documented, and a value each stated constraint refuses.
 */

export type Json = Record<string, unknown>;
export type Spec = {
  paths: Record<string, Record<string, Op>>;
  components?: { schemas?: Record<string, Json> };
};
export type Op = {
  operationId: string;
  parameters?: Array<{ in: string; name: string; schema: Json }>;
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { description?: string }>;
  security?: Array<Record<string, string[]>>;
};

export interface Operation {
  method: string;
  /** The path template (`/api/request/{id}/`). */
  template: string;
  op: Op;
}

export function operations(spec: Spec): Operation[] {
  return Object.entries(spec.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), template, op })),
  );
}

export function resolve(spec: Spec, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  return spec.components?.schemas?.[ref.replace(/^#\/components\/schemas\//, "")];
}

/** The body's schema (JSON or multipart), resolved. */
export function bodySchema(spec: Spec, op: Op): { media: string; schema: Json } | undefined {
  const [media, content] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  const schema = resolve(spec, content?.schema);
  return media && schema ? { media, schema } : undefined;
}

/** True when `status` is documented for the operation and, when given, its description names `code`. */
export function documents(op: Op, status: number, code?: string): boolean {
  const response = op.responses[String(status)];
  if (!response) return false;
  return code === undefined || (response.description ?? "").includes(`\`${code}\``);
}

/** A value the schema's own constraints refuse, with the keyword that refuses it (undefined: none stated). */
export function violation(schema: Json): { keyword: string; value: unknown } | undefined {
  if (Array.isArray(schema.enum)) return { keyword: "enum", value: "not-one-of-them" };
  if (typeof schema.pattern === "string") {
    const re = new RegExp(schema.pattern as string);
    const value = ["0", "!", " x ", "a".repeat(70), "http:/"].find((v) => !re.test(v));
    if (value !== undefined) return { keyword: "pattern", value };
  }
  if (schema.format === "uri") return { keyword: "format", value: "0" };
  if (typeof schema.minLength === "number" && schema.minLength > 0)
    return { keyword: "minLength", value: "" };
  if (typeof schema.maxLength === "number")
    return { keyword: "maxLength", value: "a".repeat(schema.maxLength + 1) };
  if (typeof schema.minimum === "number") return { keyword: "minimum", value: schema.minimum - 1 };
  if (typeof schema.maximum === "number") return { keyword: "maximum", value: schema.maximum + 1 };
  return undefined;
}

/** Whether `value` satisfies the string keywords the document states (pattern, lengths, enum, uri). */
export function allows(schema: Json, value: string): boolean {
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value)) return false;
  if (typeof schema.minLength === "number" && value.length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && value.length > schema.maxLength) return false;
  if (schema.format === "uri" && !URL.canParse(value)) return false;
  return true;
}
