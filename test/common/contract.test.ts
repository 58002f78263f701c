/**
 * Both OpenAPI documents are exact: every status an operation answers is documented with its code
 * (401 and 429 included, each provoked here), intel's operations need tokenAuth, and every
 * constraint a document states is one the service enforces (a value breaking it gets 400) — the
 * values a client was refused although the schema allowed them are now refused by the schema too.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import {
  allows,
  bodySchema,
  documents,
  type Json,
  type Op,
  operations,
  resolve,
  type Spec,
  violation,
} from "../helpers/openapi-walk.ts";

const fill = (template: string) => template.replace(/\{[^}]+\}/g, "0");

/** A body each intel operation accepts, one field of which each check breaks. */
const INTEL_BODIES: Record<string, Json> = {
  ask_about_subject: { super_type: "OBSERVABLE", type: "DOMAIN", value: "example.org" },
  ask_about_subjects: { subjects: [{ super_type: "OBSERVABLE", type: "DOMAIN", value: "example.org" }] },
  set_webhook: { url: "https://example.org/hook" },
};

/** Form fields each files operation needs besides the file. */
const FILES_FIELDS: Record<string, Record<string, string>> = {
  rulematch: { rules: "rule a { condition: true }" },
  yara: { rules: "rule a { condition: true }" },
};

/** An upload for intel's analyses: `size` bytes and `fields`. */
function analysisForm(fields: Record<string, string>, size = 10): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append("file", new Blob([Buffer.alloc(size)]), "a.bin");
  return body;
}

function form(fields: Record<string, unknown>): FormData {
  const body = new FormData();
  body.append("file", new Blob([Buffer.from("hello world\n")]), "a.txt");
  for (const [k, v] of Object.entries(fields)) body.append(k, String(v));
  return body;
}

describe("the OpenAPI documents are exact", () => {
  let files: TestFilesServer;
  let intel: TestIntelServer;
  let limited: TestIntelServer;
  let filesSpec: Spec;
  let intelSpec: Spec;
  let drop: () => Promise<void>;
  const intelOp = (id: string) => operations(intelSpec).find((o) => o.op.operationId === id)!.op;

  before(async () => {
    files = await startFilesServer();
    const db = await freshDatabase("sqlite");
    drop = db.drop;
    intel = await startIntelServer({
      databaseUrl: db.url,
      worker: false,
      env: {
        INTEL_CONNECTORS: "",
        WEBHOOK_ALLOW_PRIVATE: "1",
        FILES_URL: files.url,
        INTEL_ANALYSIS_MAX_BYTES: "1000",
      },
    });
    limited = await startIntelServer({
      databaseUrl: db.url,
      worker: false,
      env: { INTEL_CONNECTORS: "", INTEL_KEY_RATE_LIMIT_PER_MINUTE: "1" },
    });
    filesSpec = (await json(await fetch(`${files.url}/openapi.json`))) as unknown as Spec;
    intelSpec = (await json(await intel.api("/api/schema/"))) as unknown as Spec;
  });
  after(async () => {
    await files?.close();
    await intel?.close();
    await limited?.close();
    await drop?.();
  });

  /** Sends and checks the answer's status and code are documented for the operation. */
  async function check(
    base: string,
    op: Op,
    method: string,
    path: string,
    init: RequestInit,
    status: number,
  ) {
    const res = await fetch(base + path, { method, ...init });
    const body = await json(res);
    const shown = `${method} ${path} (${op.operationId})`;
    assert.equal(res.status, status, `${shown}: ${JSON.stringify(body)}`);
    assert.ok(documents(op, status, String(body.code)), `${shown}: ${status} ${body.code} is not documented`);
  }

  it("applies tokenAuth to every intel operation and documents its 401, 429 and 503", async () => {
    const all = operations(intelSpec);
    assert.ok(all.length >= 12);
    for (const { method, template, op } of all) {
      assert.deepEqual(op.security, [{ tokenAuth: [] }], op.operationId);
      for (const status of [429, 503]) assert.ok(documents(op, status), `${op.operationId} lacks ${status}`);
      const body = INTEL_BODIES[op.operationId];
      const init = body
        ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } }
        : {};
      await check(intel.url, op, method, fill(template), init, 401);
      await check(
        intel.url,
        op,
        method,
        fill(template),
        { ...init, headers: { ...init.headers, authorization: "Token nope" } },
        401,
      );
    }
  });

  it("documents intel's 404, 409, 413, 415 and 400 codes where they happen", async () => {
    const auth = { authorization: `Token ${intel.key}` };
    const jsonAuth = { ...auth, "content-type": "application/json" };
    const cases: Array<[string, string, string, RequestInit, number]> = [
      ["get_request", "GET", "/api/request/0/", {}, 404],
      ["get_request", "GET", "/api/request/0/?format=AAA", {}, 400],
      ["get_batch", "GET", "/api/batches/0/?results=2", {}, 400],
      ["get_batch", "GET", "/api/batches/0/", {}, 404],
      ["list_webhook_deliveries", "GET", "/api/webhook/deliveries/?limit=0", {}, 400],
      ["get_webhook", "GET", "/api/webhook/", {}, 404],
      ["delete_webhook", "DELETE", "/api/webhook/", {}, 404],
      ["set_webhook", "PUT", "/api/webhook/", { body: JSON.stringify({ url: "ftp://example.org/" }) }, 400],
      ["get_analysis", "GET", "/api/analyses/0/", {}, 404],
      ["get_analysis_thumbnail", "GET", "/api/analyses/0/thumbnail/", {}, 404],
      ["enrich_analysis", "POST", "/api/analyses/0/enrich/", {}, 404],
      ["share_analysis", "POST", "/api/analyses/0/share/", { body: "{}" }, 404],
      ["create_analysis", "POST", "/api/analyses/", { body: "{}" }, 400],
      ["create_analysis", "POST", "/api/analyses/", { body: analysisForm({ colour: "red" }) }, 400],
      ["create_analysis", "POST", "/api/analyses/", { body: analysisForm({}, 1001) }, 413],
      ["list_analyses", "GET", "/api/analyses/?verdict=fine", {}, 400],
      ["ask_about_subject", "POST", "/api/request/", { body: "{not json" }, 400],
      [
        "ask_about_subject",
        "POST",
        "/api/request/",
        { body: JSON.stringify({ ...INTEL_BODIES.ask_about_subject, super_type: "0" }) },
        400,
      ],
      [
        "ask_about_subject",
        "POST",
        "/api/request/",
        { body: JSON.stringify({ ...INTEL_BODIES.ask_about_subject, value: "exa\nmple.org" }) },
        400,
      ],
      [
        "ask_about_subject",
        "POST",
        "/api/request/",
        { body: JSON.stringify({ ...INTEL_BODIES.ask_about_subject, tlp: "PURPLE" }) },
        400,
      ],
      ["ask_about_subject", "POST", "/api/request/", { body: "x".repeat(2_000_000) }, 413],
      [
        "ask_about_subject",
        "POST",
        "/api/request/",
        { body: "<a/>", headers: { ...auth, "content-type": "application/xml" } },
        415,
      ],
      [
        "ask_about_subjects",
        "POST",
        "/api/requests/",
        { body: JSON.stringify({ subjects: [{ super_type: "0" }] }) },
        400,
      ],
    ];
    for (const [id, method, path, init, status] of cases)
      await check(
        intel.url,
        intelOp(id),
        method,
        path,
        { headers: init.body && !(init.body instanceof FormData) ? jsonAuth : auth, ...init },
        status,
      );
    // With a webhook set, DELETE answers 204 (documented instead of a default 200).
    const put = await intel.api("/api/webhook/", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook" }),
    });
    assert.equal(put.status, 201, await put.text());
    const removed = await fetch(`${intel.url}/api/webhook/`, { method: "DELETE", headers: auth });
    assert.equal(removed.status, 204);
    const deleteOp = intelOp("delete_webhook");
    assert.ok(
      documents(deleteOp, 204) && !documents(deleteOp, 200),
      "DELETE /api/webhook/ documents 200, answers 204",
    );
    // A finished request's export before it succeeded: 409.
    const asked = await json(
      await fetch(`${intel.url}/api/request/`, {
        method: "POST",
        headers: jsonAuth,
        body: JSON.stringify(INTEL_BODIES.ask_about_subject),
      }),
    );
    await check(
      intel.url,
      intelOp("get_request"),
      "GET",
      `/api/request/${asked.id}/?format=stix`,
      { headers: auth },
      409,
    );
  });

  it("documents the per-key limit's 429", async () => {
    const op = intelOp("list_types");
    const headers = { authorization: `Token ${limited.key}` };
    assert.equal((await fetch(`${limited.url}/api/types/`, { headers })).status, 200);
    await check(limited.url, op, "GET", "/api/types/", { headers }, 429);
  });

  it("documents the files service's upload refusals", async () => {
    const op = (name: string) => operations(filesSpec).find((o) => o.template === `/analyzer/${name}`)!.op;
    const thumb = operations(filesSpec).find((o) => o.template === "/converter/thumbnail")!.op;
    const twoFiles = form({});
    twoFiles.append("other", new Blob([Buffer.from("x")]), "b.txt");
    await check(files.url, op("extractor"), "POST", "/analyzer/extractor", { body: twoFiles }, 400);
    await check(
      files.url,
      op("rulematch"),
      "POST",
      "/analyzer/rulematch",
      { body: form({ rules: "" }) },
      400,
    );
    await check(files.url, op("all"), "POST", "/analyzer/all?processors=nope", { body: form({}) }, 400);
    await check(files.url, op("all"), "POST", "/analyzer/all", { body: form({ processors: "nope" }) }, 400);
    await check(
      files.url,
      thumb,
      "POST",
      `/converter/thumbnail?color=${"a".repeat(64)}`,
      { body: form({}) },
      400,
    );
    await check(
      files.url,
      op("iocs"),
      "POST",
      "/analyzer/iocs",
      { body: "<a/>", headers: { "content-type": "application/xml" } },
      400,
    );
    for (const { op } of operations(filesSpec)) assert.ok(documents(op, 429), `${op.operationId} lacks 429`);
  });

  it("refuses with 400 every value breaking a constraint the documents state", async () => {
    let checked = 0;
    const auth = { authorization: `Token ${intel.key}` };
    for (const [base, spec, headers] of [
      [files.url, filesSpec, {}],
      [intel.url, intelSpec, auth],
    ] as const) {
      for (const { method, template, op } of operations(spec)) {
        const query = (op.parameters ?? []).filter((p) => p.in !== "header");
        for (const p of query) {
          const broken = violation(resolve(spec, p.schema) ?? {});
          if (!broken) continue;
          const path =
            p.in === "path"
              ? template.replace(`{${p.name}}`, encodeURIComponent(String(broken.value)))
              : `${fill(template)}?${p.name}=${encodeURIComponent(String(broken.value))}`;
          const init = requestFor(spec, op, {}, headers);
          await check(base, op, method, fill(path), init, 400);
          checked++;
        }
        const body = bodySchema(spec, op);
        for (const [name, field] of Object.entries((body?.schema.properties ?? {}) as Record<string, Json>)) {
          const broken = violation(resolve(spec, field) ?? {});
          if (!broken || name === "file") continue;
          await check(
            base,
            op,
            method,
            fill(template),
            requestFor(spec, op, { [name]: broken.value }, headers),
            400,
          );
          checked++;
        }
      }
    }
    assert.ok(checked >= 25, `only ${checked} constraints checked`);
  });

  it("states the checks that refused values the schemas allowed", () => {
    const field = (spec: Spec, path: string, name: string, where: "body" | "query") => {
      const { op } = operations(spec).find((o) => o.template === path)!;
      if (where === "query") return resolve(spec, op.parameters?.find((p) => p.name === name)?.schema) ?? {};
      const properties = (bodySchema(spec, op)?.schema.properties ?? {}) as Record<string, Json>;
      return resolve(spec, properties[name]) ?? {};
    };
    const refused: Array<[Spec, string, string, "body" | "query", string]> = [
      [filesSpec, "/analyzer/rulematch", "rules", "body", ""],
      [filesSpec, "/analyzer/rulematch", "rules", "body", "  \n"],
      [filesSpec, "/analyzer/all", "processors", "body", "nope"],
      [filesSpec, "/analyzer/all", "processors", "query", "extractor,,iocs"],
      [filesSpec, "/converter/thumbnail", "color", "query", "a".repeat(64)],
      [intelSpec, "/api/request/", "super_type", "body", "0"],
      [intelSpec, "/api/webhook/", "url", "body", "0"],
    ];
    for (const [spec, path, name, where, value] of refused)
      assert.equal(
        allows(field(spec, path, name, where), value),
        false,
        `${path} ${name}=${JSON.stringify(value)}`,
      );
    const accepted: Array<[Spec, string, string, "body" | "query", string]> = [
      [filesSpec, "/analyzer/all", "processors", "query", " extractor, iocs "],
      [filesSpec, "/analyzer/all", "processors", "query", ""],
      [filesSpec, "/converter/thumbnail", "color", "query", "rgba(1, 2, 3, 0.5)"],
      [filesSpec, "/converter/thumbnail", "color", "query", "#0a0B0c"],
      [intelSpec, "/api/request/", "super_type", "body", " observable "],
    ];
    for (const [spec, path, name, where, value] of accepted)
      assert.equal(
        allows(field(spec, path, name, where), value),
        true,
        `${path} ${name}=${JSON.stringify(value)}`,
      );
  });
});

/** A request for `op` with its valid body (JSON, or a form with a file) and `fields` replaced. */
function requestFor(spec: Spec, op: Op, fields: Json, headers: Record<string, string>): RequestInit {
  const body = bodySchema(spec, op);
  if (!body) return { headers };
  if (body.media === "multipart/form-data") {
    const name = Object.keys(FILES_FIELDS).find((n) => op.operationId.includes(`_${n}_`));
    return { headers, body: form({ ...(name ? FILES_FIELDS[name] : {}), ...fields }) };
  }
  const valid = INTEL_BODIES[op.operationId] ?? {};
  return {
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ ...valid, ...fields }),
  };
}
