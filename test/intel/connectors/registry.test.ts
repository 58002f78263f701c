/**
 * The connector folders, the registry and what people read agree: every `src/intel/connectors/<id>/`
 * is registered (else its contract test silently never runs), docs/connectors.md and README name
 * each one, and each connector's panel data (key page, vendor pages, verdict rule) is usable: the
 * rule reads attributes its `normalize` writes, and the panel's own verdict.js reaches each case.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import vm from "node:vm";
import { ROOT } from "../../../src/common/config.ts";
import { CONNECTORS } from "../../../src/intel/connectors/registry.ts";
import type { AttributeTest, Connector, Subject } from "../../../src/intel/connectors/types.ts";
import { findType } from "../../../src/intel/model/taxonomy.ts";

const FOLDER = path.join(ROOT, "src", "intel", "connectors");
const ids = CONNECTORS.map((c) => c.id);

interface PanelScripts {
  loupeVerdict(doc: unknown, vendors: unknown): { assessment: string; detections: string[] };
  loupeVendorPage(vendor: unknown, subject: { type: string; value: string }): string | undefined;
}

/** The panel's verdict.js, run as the browser runs it: a script that sets two functions on `window`. */
function panelScripts(): PanelScripts {
  const window = {} as PanelScripts;
  const code = readFileSync(path.join(ROOT, "src", "intel", "admin", "static", "verdict.js"), "utf8");
  vm.runInNewContext(code, { window });
  return window;
}

const subjectsOf = (c: Connector): Subject[] =>
  c.supportedTypes.map((t) => ({ ...t, value: findType(t.superType, t.type)?.example ?? "Example Name" }));

/** An attribute value that passes `test` (as the store keeps attributes: text). */
function valueMeeting(test: AttributeTest): string {
  const n = Number(test.value);
  switch (test.is) {
    case "present":
      return "x";
    case ">=":
      return String(n);
    case ">":
      return String(n + 1);
    case "<":
      return String(n - 1);
    default:
      return String(test.value);
  }
}

const meetingDetection = (line: string) => ({ [/\{(\w+)\}/.exec(line)?.[1] ?? ""]: "7" });

/** The attributes a verdict rule reads (`source_vendor` is the framework's, not the connector's). */
function attributesRead(c: Connector): string[] {
  const rule = c.verdict;
  if (!rule) return [];
  const detection = /\{(\w+)\}/.exec(rule.detection ?? "")?.[1];
  return [...(rule.when ?? []), ...rule.cases]
    .map((t) => t.attribute)
    .concat(detection ? [detection] : [])
    .filter((a) => a !== "source_vendor");
}

describe("connector registry", () => {
  it("registers every folder of src/intel/connectors/, and every id has its folder", () => {
    const folders = readdirSync(FOLDER, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    assert.deepEqual(folders, [...ids].sort());
    assert.equal(new Set(ids).size, ids.length, "an id twice");
    for (const id of ids) {
      assert.match(id, /^[a-z0-9]+$/, `${id}: the id is also a setting's suffix`);
      for (const file of ["index.ts", "normalize.ts", "fixtures"])
        assert.ok(existsSync(path.join(FOLDER, id, file)), `src/intel/connectors/${id}/${file} is missing`);
    }
  });

  it("is the list docs/connectors.md's table and README.md's connector list give", () => {
    const docs = readFileSync(path.join(ROOT, "docs", "connectors.md"), "utf8");
    const table = docs.slice(0, docs.indexOf("\n\n", docs.indexOf("| id |")));
    const documented = [...table.matchAll(/^\| `([a-z0-9]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(documented, ids, "docs/connectors.md's first table, in registry order");
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
    const list = /connectors for (.*?) \(docs\/connectors\.md\)/.exec(readme)?.[1] ?? "";
    for (const c of CONNECTORS) {
      const name = c.vendor.replace(/ \(.*\)$/, ""); // "ThreatFox (abuse.ch)": ThreatFox
      assert.ok(list.includes(name), `README.md's connector list lacks "${name}" (${c.id})`);
    }
  });

  it("has every connector in docs/connectors.md's freshness table, and every quota preset in its quota table", () => {
    const docs = readFileSync(path.join(ROOT, "docs", "connectors.md"), "utf8");
    const section = (title: string) =>
      docs.slice(docs.indexOf(title), docs.indexOf("\n## ", docs.indexOf(title) + 1));
    const rowIds = (text: string) =>
      text
        .split("\n")
        .filter((line) => line.startsWith("| `"))
        .flatMap((line) => [...(line.split(" | ")[0] ?? "").matchAll(/`([a-z0-9]+)`/g)].map((m) => m[1]));
    assert.deepEqual(rowIds(section("## Freshness and disclosure")).sort(), [...ids].sort());
    const presets = CONNECTORS.filter((c) => c.quota).map((c) => c.id);
    assert.deepEqual(rowIds(section("## Quotas")).sort(), presets.sort());
  });

  for (const c of CONNECTORS) {
    it(`${c.id}: a key page when a key is needed, vendor pages for its own types`, () => {
      const needsKeyPage = c.credentialFields.length > 0 && !c.baseUrlCredential;
      if (needsKeyPage) assert.match(c.keyPage ?? "", /^https:\/\/[^/]+\//, "where to get a key");
      else assert.equal(c.keyPage, null, "keyless or self-hosted: no key page");
      const types = new Set(c.supportedTypes.map((t) => t.type));
      for (const page of c.vendorPages) {
        assert.match(page.url, /^https:\/\/[^/{}]+\//);
        assert.deepEqual(
          page.url.match(/\{\w*\}/g)?.filter((p) => p !== "{value}" && p !== "{type}") ?? [],
          [],
        );
        for (const t of page.types ?? []) assert.ok(types.has(t), `vendor page for ${t}, not looked up`);
      }
      const { loupeVendorPage } = panelScripts();
      for (const subject of subjectsOf(c)) {
        const href = loupeVendorPage({ vendorPages: c.vendorPages }, subject);
        if (href) assert.ok(href.includes(encodeURIComponent(subject.value)), `${subject.type}: ${href}`);
      }
    });

    it(`${c.id}: its verdict rule reads attributes its normalize writes, and each case can be reached`, () => {
      const normalizeSource = readFileSync(path.join(FOLDER, c.id, "normalize.ts"), "utf8");
      for (const attribute of attributesRead(c))
        assert.match(
          normalizeSource,
          new RegExp(`\\b${attribute}\\b`),
          `${c.id}/normalize.ts never writes ${attribute}`,
        );
      if (!c.verdict) return;
      const { loupeVerdict } = panelScripts();
      const vendors = { [c.id]: { vendorPages: c.vendorPages, verdict: c.verdict } };
      const assess = (attributes: Record<string, string>) =>
        loupeVerdict(
          { root_entity: { id: "root", attributes }, sources: { [c.id]: { status: "ok" } } },
          vendors,
        );
      const meeting = (tests: AttributeTest[]) =>
        Object.fromEntries(tests.map((t) => [t.attribute, valueMeeting(t)]));
      const when = meeting(c.verdict.when ?? []);
      for (const test of c.verdict.cases)
        assert.equal(assess({ ...when, ...meeting([test]) }).assessment, test.verdict, JSON.stringify(test));
      if (c.verdict.otherwise) assert.equal(assess(when).assessment, c.verdict.otherwise, "otherwise");
      assert.equal(assess({}).assessment, c.verdict.when ? "unknown" : (c.verdict.otherwise ?? "unknown"));
      const detection = c.verdict.detection;
      if (detection)
        assert.deepEqual(assess({ ...when, ...meetingDetection(detection) }).detections.length, 1);
    });
  }
});
