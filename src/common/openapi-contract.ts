/**
 * Completes a service's OpenAPI document with what its routes do not say one by one: the statuses
 * every operation can answer (authentication, rate limits, validation, an unavailable database),
 * each operation's own statuses with their error codes, the security every operation needs, and
 * the constraints the service checks itself (its own 400 code, not the validator's). Applied to
 * the finished document, so route files stay about their bodies and nothing changes at run time.
 */

/** An error status an operation can answer: what it means and the `code`s its body carries. */
export interface DocumentedStatus {
  meaning: string;
  codes: string[];
}

/** Extra constraints on a request field, by where it is: `body` (JSON or multipart) or `query`. */
export interface FieldConstraint {
  in: "body" | "query";
  /** Property path inside the body (`["subjects", "*", "super_type"]`, `*` for array items), or the query parameter's name. */
  path: string[];
  schema: Record<string, unknown>;
}

export interface ContractPolicy {
  /** Statuses every documented operation can answer. */
  every: Record<number, DocumentedStatus>;
  /** The codes of the 400 a request that does not match its schema gets (operations with parameters or a body). */
  validation: DocumentedStatus;
  /** Statuses of operations that take a body (too large, wrong media type). */
  withBody?: Record<number, DocumentedStatus>;
  /** Per operationId: its own statuses (400 codes are added to the validation's). */
  operations: Record<string, Record<number, DocumentedStatus>>;
  /** Per operationId: constraints the service checks itself, documented on the field. */
  constraints?: Record<string, FieldConstraint[]>;
  /** The security requirement of every operation (`[{tokenAuth: []}]`). */
  security?: Array<Record<string, string[]>>;
}

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  parameters?: Array<{ in: string; name: string; schema?: Json }>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, Json>;
  security?: unknown;
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["detail", "code"],
  properties: { detail: { type: "string" }, code: { type: "string" } },
  additionalProperties: true,
};

function merged(
  a: DocumentedStatus | undefined,
  b: DocumentedStatus | undefined,
): DocumentedStatus | undefined {
  if (!a || !b) return a ?? b;
  return { meaning: `${a.meaning}; or: ${b.meaning}`, codes: [...new Set([...a.codes, ...b.codes])] };
}

/** The statuses one operation can answer, by the policy. */
export function statusesOf(policy: ContractPolicy, op: Operation): Map<number, DocumentedStatus> {
  const out = new Map<number, DocumentedStatus>();
  const add = (table: Record<number, DocumentedStatus> | undefined) => {
    for (const [status, s] of Object.entries(table ?? {}))
      out.set(Number(status), merged(out.get(Number(status)), s)!);
  };
  add(policy.every);
  if ((op.parameters?.length ?? 0) > 0 || op.requestBody) add({ 400: policy.validation });
  if (op.requestBody) add(policy.withBody);
  add(policy.operations[op.operationId ?? ""]);
  return out;
}

/** "Refused … (`code`: `a`, `b`)": the codes are named, not enumerated, as a service may add one. */
const describe = (s: DocumentedStatus) =>
  `${s.meaning} (\`code\`: ${s.codes.map((c) => `\`${c}\``).join(", ")})`;

function documentStatuses(policy: ContractPolicy, op: Operation): void {
  op.responses ??= {};
  for (const [status, s] of statusesOf(policy, op)) {
    if (status < 400) {
      // A success without a body (204): it replaces the 200 Fastify documents by default.
      if (op.responses["200"]?.description === "Default Response") delete op.responses["200"];
      op.responses[String(status)] = { description: s.meaning };
      continue;
    }
    op.responses[String(status)] = {
      description: describe(s),
      content: { "application/json": { schema: ERROR_SCHEMA } },
    };
  }
  if (policy.security) op.security = policy.security;
}

/** The schema at `path` inside `schema` (following `$ref`s into the document's components). */
function schemaAt(doc: Json, schema: Json | undefined, path: string[]): Json | undefined {
  let here = resolve(doc, schema);
  for (const step of path) {
    if (!here) return undefined;
    here = resolve(
      doc,
      step === "*" ? (here.items as Json) : (here.properties as Record<string, Json>)?.[step],
    );
  }
  return here;
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace(/^#\/components\/schemas\//, "");
  return ((doc.components as Json)?.schemas as Record<string, Json>)?.[name];
}

function documentConstraints(doc: Json, op: Operation, constraints: FieldConstraint[]): void {
  for (const c of constraints) {
    const target =
      c.in === "query"
        ? op.parameters?.find((p) => p.in === "query" && p.name === c.path[0])?.schema
        : Object.values(op.requestBody?.content ?? {})
            .map((media) => schemaAt(doc, media.schema, c.path))
            .find((s) => s !== undefined);
    if (!target)
      throw new Error(`OpenAPI contract: ${op.operationId} has no ${c.in} field ${c.path.join(".")}`);
    Object.assign(target, c.schema);
  }
}

/** `document` (an OpenAPI 3 object) completed by the policy: a copy, the routes' own schemas untouched. */
export function completeContract<T>(document: T, policy: ContractPolicy): T {
  const doc = JSON.parse(JSON.stringify(document)) as Json;
  for (const methods of Object.values((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const op of Object.values(methods)) {
      documentStatuses(policy, op);
      const constraints = policy.constraints?.[op.operationId ?? ""];
      if (constraints) documentConstraints(doc, op, constraints);
    }
  }
  return doc as T;
}
