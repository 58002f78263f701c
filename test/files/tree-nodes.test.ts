/**
 * What every node of the tree gets, and where its text is placed: fuzzy hashes per node as the
 * root gets them, an Outlook message attached to a message as a node its attachments' paths go
 * through, an ODF embedded object as a child, and each indicator at the node whose own text holds
 * it — also text after a container's children and a document line that imitates a member marker.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import * as CFB from "cfb";
import { multipartEmail } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { buildMsg, type MsgSpec } from "../helpers/msg.ts";
import { ole10Native } from "../helpers/tree-corpus.ts";
import { storedZip } from "../helpers/zip.ts";

/** Each indicator's value and the node paths of its content locations. */
const whereFound = (iocs: Json) =>
  Object.fromEntries(
    iocs.indicators.map((i: Json) => [
      i.value,
      i.locations.filter((l: Json) => l.part === "content").map((l: Json) => l.path),
    ]),
  );

const message = (subject: string, body: string, attachments: MsgSpec["attachments"]): MsgSpec => ({
  subject,
  senderName: "Alice",
  senderEmail: "alice@example.org",
  recipients: [{ name: "Bob", email: "bob@example.org", kind: "to" }],
  body,
  sent: new Date("2026-11-10T09:15:00Z"),
  attachments,
});

/** An ODT carrying `data` as an embedded OLE Package object (`Object 1`), declared in its manifest as LibreOffice writes it. */
function odtWithObject(label: string, data: Buffer): Buffer {
  const object = CFB.utils.cfb_new();
  CFB.utils.cfb_add(object, "/\u0001Ole10Native", ole10Native(label, data));
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';
  const entry = (p: string, type: string) =>
    `<manifest:file-entry manifest:full-path="${p}" manifest:media-type="${type}"/>`;
  return storedZip({
    mimetype: "application/vnd.oasis.opendocument.text",
    "META-INF/manifest.xml": `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">${entry("/", "application/vnd.oasis.opendocument.text")}${entry("content.xml", "text/xml")}${entry("Object 1", "application/vnd.sun.star.oleobject")}</manifest:manifest>`,
    "content.xml": `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ns} office:version="1.3"><office:body><office:text><text:p>See the object below.</text:p><text:p><draw:frame draw:name="Object1"><draw:object-ole xlink:href="./Object 1" xlink:type="simple"/></draw:frame></text:p></office:text></office:body></office:document-content>`,
    "Object 1": Buffer.from(CFB.write(object, { type: "buffer" }) as Uint8Array),
  });
}

describe("the tree's nodes: node analyses and each node's own text", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(async () => {
    await server?.close();
  });

  const all = async (name: string, bytes: Buffer | string) => {
    const res = await postFile(`${server.url}/analyzer/all`, bytes, name, {
      processors: "extractor,iocs",
    });
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.success, true, JSON.stringify(body.processors));
    return body;
  };

  it("gives every child ssdeep and TLSH as the root gets them (the root's in extra.hashes)", async () => {
    // Varied enough for TLSH (plain repeated prose is not).
    const line = (i: number) => `Line ${i}: ${createHash("sha256").update(String(i)).digest("base64")}`;
    const note = Array.from({ length: 40 }, (_, i) => line(i)).join("\n");
    const body = await all("pack.zip", storedZip({ "notes.txt": note, "empty.txt": "" }));
    const extra = body.processors.extractor.analysis.extra;
    const nodes: Json[] = extra.tree.nodes;
    assert.match(extra.hashes.ssdeep, /^\d+:[^:]+:[^:]+$/);
    const notes = nodes.find((n) => n.path === "pack.zip › notes.txt");
    assert.match(notes?.hashes.ssdeep, /^\d+:[^:]+:[^:]+$/);
    assert.match(notes?.hashes.tlsh, /^[0-9A-F]{70}$/);
    // Too short for TLSH: said so with null, as for the root.
    const empty = nodes.find((n) => n.path === "pack.zip › empty.txt");
    assert.equal(empty?.hashes.tlsh, null);
    assert.equal(typeof empty?.hashes.ssdeep, "string");
  });

  it("makes a message attached to an Outlook message a node its attachments' paths go through", async () => {
    const inner = message("Inner", "The inner body points at https://inner-bad.net/a", [
      {
        fileName: "a.zip",
        mimeType: "application/zip",
        content: storedZip({ "x.txt": "payload at https://deep-bad.org/x" }),
      },
    ]);
    const outer = buildMsg(
      message("Outer", "The outer body points at https://outer-bad.com/o", [
        { fileName: "inner.msg", message: inner },
        {
          fileName: "after.txt",
          mimeType: "text/plain",
          content: Buffer.from("later https://after-bad.io/z"),
        },
      ]),
    );
    const body = await all("outer.msg", outer);
    const nodes: Json[] = body.processors.extractor.analysis.extra.tree.nodes;
    assert.deepEqual(
      nodes.map((n) => [n.path, n.status]),
      [
        ["outer.msg", "analysed"],
        ["outer.msg › inner.msg", "analysed"],
        ["outer.msg › inner.msg › a.zip", "analysed"],
        ["outer.msg › inner.msg › a.zip › x.txt", "analysed"],
        ["outer.msg › after.txt", "analysed"],
      ],
    );
    assert.equal(nodes[1]?.type, "application/vnd.ms-outlook");
    const expected = {
      "https://outer-bad.com/o": ["outer.msg"],
      "https://inner-bad.net/a": ["outer.msg › inner.msg"],
      "https://deep-bad.org/x": ["outer.msg › inner.msg › a.zip › x.txt"],
      "https://after-bad.io/z": ["outer.msg › after.txt"],
    };
    const found = whereFound(body.processors.iocs.analysis);
    for (const [value, paths] of Object.entries(expected)) assert.deepEqual(found[value], paths, value);
  });

  it("places text after a container's children at its own node, and ignores a line imitating a marker", async () => {
    const mail = multipartEmail({
      subject: "Pack",
      // A line shaped like the extractor's member marker, naming a child that comes later.
      body: "Hello\n── a.txt ──\nthe body's own https://body-bad.com/p",
      attachmentName: "pack.zip",
      attachment: storedZip({ "a.txt": "first https://alpha-bad.net/x" }),
      // No file name: its marker does not name its node.
      more: [{ bytes: Buffer.from("unnamed part https://unnamed-bad.org/u") }],
    });
    const body = await all("m.eml", mail);
    const nodes: Json[] = body.processors.extractor.analysis.extra.tree.nodes;
    assert.deepEqual(
      nodes.map((n) => n.path),
      ["m.eml", "m.eml › pack.zip", "m.eml › pack.zip › a.txt", "m.eml › attachment"],
    );
    const expected = {
      "https://body-bad.com/p": ["m.eml"],
      "https://alpha-bad.net/x": ["m.eml › pack.zip › a.txt"],
      "https://unnamed-bad.org/u": ["m.eml › attachment"],
    };
    const found = whereFound(body.processors.iocs.analysis);
    for (const [value, paths] of Object.entries(expected)) assert.deepEqual(found[value], paths, value);
    assert.deepEqual(whereFound(body.processors.extractor.analysis.extra.iocs), found);
  });

  it("takes an ODF document's embedded object out as a child, with what it holds", async () => {
    const payload = Buffer.from("dropper config: https://odf-bad.net/c2\n");
    const body = await all("report.odt", odtWithObject("config.txt", payload));
    const analysis = body.processors.extractor.analysis;
    assert.equal(analysis.type, "application/vnd.oasis.opendocument.text");
    const nodes: Json[] = analysis.extra.tree.nodes;
    const object = nodes.find((n) => n.path === "report.odt › Object 1");
    assert.equal(object?.status, "analysed");
    const file = nodes.find((n) => n.path === "report.odt › Object 1 › config.txt");
    assert.equal(file?.size, payload.length);
    assert.equal(file?.status, "analysed");
    assert.match(body.content, /See the object below\./);
    // The payload's node holds it (the object's own text has the Packager stream's strings too).
    const paths = whereFound(body.processors.iocs.analysis)["https://odf-bad.net/c2"];
    assert.ok(paths.includes("report.odt › Object 1 › config.txt"), paths);
  });
});
