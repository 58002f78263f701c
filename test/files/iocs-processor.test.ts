import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { multipartEmail } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { storedZip } from "../helpers/zip.ts";

interface Found {
  kind: string;
  type: string;
  value: string;
  locations: Array<{ part: string; page: string | null; offset: number }>;
}

describe("POST /analyzer/iocs", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  async function iocs(bytes: Uint8Array | string, name: string, fields: Record<string, string> = {}) {
    const res = await postFile(`${server.url}/analyzer/iocs`, bytes, name, fields);
    const body = await json(res);
    return { status: res.status, body, entry: body.processors?.iocs };
  }

  it("finds indicators in an e-mail's headers, body and zipped attachment, each with its place", async () => {
    const eml = multipartEmail({
      subject: "Invoice from billing-update[.]com",
      body: "Pay at hxxps://billing-update[.]com/pay?id=7 or call +44 20 7946 0958.",
      attachmentName: "docs.zip",
      attachment: storedZip({ "notes.txt": "beacon 45.77.12.9:443 hash 44d88612fea8a8f36de82e1278abb02f" }),
    }).replace("From: Alice <alice@example.org>", "From: Billing <billing@billing-update.com>");
    const { status, body, entry } = await iocs(eml, "invoice.eml");
    assert.equal(status, 200);
    assert.equal(body.success, true, JSON.stringify(entry));
    assert.equal(entry.metadata.type, "message/rfc822");
    const found = entry.analysis.indicators as Found[];
    const byValue = new Map(found.map((i) => [i.value, i]));
    assert.deepEqual(found.map((i) => `${i.type}:${i.value}`).sort(), [
      "DOMAIN:billing-update.com",
      "EMAIL:billing@billing-update.com",
      "IPV4:45.77.12.9",
      "MD5:44d88612fea8a8f36de82e1278abb02f",
      "PHONE:+442079460958",
      "URL:https://billing-update.com/pay?id=7",
    ]);
    assert.equal(byValue.get("billing-update.com")?.locations[0]?.part, "title");
    assert.ok(
      byValue.get("billing@billing-update.com")?.locations.some((l) => l.part.startsWith("extra.mail.from")),
    );
    const ip = byValue.get("45.77.12.9")?.locations[0];
    assert.equal(ip?.part, "content");
    assert.equal(ip?.page, "notes.txt");
    assert.equal(body.content, null);
    assert.equal(entry.analysis.truncated, null);
  });

  it("locations point into the extracted text", async () => {
    const text = "The implant calls cdn-sync[.]net and 2a03:2880:f10c:83:face:b00c:0:25de every hour.";
    const { entry } = await iocs(text, "note.txt");
    const extracted = await json(await postFile(`${server.url}/analyzer/extractor`, text, "note.txt"));
    for (const i of entry.analysis.indicators as Found[]) {
      const at = i.locations[0]?.offset ?? -1;
      assert.ok(extracted.content.slice(at).startsWith(i.kind === "domain" ? "cdn-sync" : "2a03"), i.value);
    }
    assert.equal(entry.analysis.indicators.length, 2);
  });

  it("the extractor's result carries the same indicators (extra.iocs) and the fuzzy hashes", async () => {
    const text = `The implant calls cdn-sync[.]net.\n${"Long enough text for a TLSH digest, with varied words. ".repeat(20)}`;
    const extracted = await json(await postFile(`${server.url}/analyzer/extractor`, text, "note.txt"));
    const extra = extracted.processors.extractor.analysis.extra;
    assert.deepEqual(
      extra.iocs.indicators.map((i: Found) => i.value),
      ["cdn-sync.net"],
    );
    assert.match(extra.hashes.ssdeep, /^\d+:[A-Za-z0-9+/]+:[A-Za-z0-9+/]*$/);
    assert.match(extra.hashes.tlsh, /^[0-9A-F]{70}$/);
    assert.deepEqual((await iocs(text, "note.txt")).entry.analysis, extra.iocs);
  });

  it("reports private addresses only when asked", async () => {
    const text = "lateral movement to 10.20.30.40 and 172.16.5.4";
    assert.deepEqual((await iocs(text, "a.txt")).entry.analysis.indicators, []);
    const asked = await iocs(text, "a.txt", { private: "true" });
    assert.deepEqual(
      (asked.entry.analysis.indicators as Found[]).map((i) => i.value),
      ["10.20.30.40", "172.16.5.4"],
    );
  });

  it("refuses a bad field with a 400", async () => {
    const { status, body } = await iocs("x", "a.txt", { private: "maybe" });
    assert.equal(status, 400);
    assert.equal(typeof body.detail, "string");
    assert.ok(body.code);
  });

  it("is documented in OpenAPI with its field and result", async () => {
    const spec = await json(await fetch(`${server.url}/openapi.json`));
    const op = spec.paths["/analyzer/iocs"]?.post;
    // Bodies and answers are named components (as Mandolin's document has them): follow the $refs.
    const deref = (node: { $ref?: string }) =>
      node.$ref ? spec.components.schemas[node.$ref.split("/").at(-1) as string] : node;
    assert.ok(deref(op.requestBody.content["multipart/form-data"].schema).properties.private);
    const answer = deref(op.responses["200"].content["application/json"].schema);
    const text = JSON.stringify([answer, spec.components.schemas]);
    for (const word of ["indicators", "locations", "occurrences", "registry_key", "max_indicators"])
      assert.ok(text.includes(word), word);
  });

  it("caps the scan with IOC_MAX_INDICATORS and says so", async () => {
    const capped = await startFilesServer({ IOC_MAX_INDICATORS: "3" });
    try {
      const text = Array.from({ length: 20 }, (_, i) => `host-${i}.org`).join("\n");
      const res = await postFile(`${capped.url}/analyzer/iocs`, text, "many.txt");
      const entry = (await json(res)).processors.iocs;
      assert.equal(entry.analysis.indicators.length, 3);
      assert.equal(entry.analysis.truncated, "max_indicators");
    } finally {
      await capped.close();
    }
  });
});
