/**
 * The report page's model (static/report-model.js, run as the browser runs it) on real
 * `/analyzer/all` results of a real files service with a real clamd: the flat node list becomes a
 * tree again, and each finding hangs on its node — EICAR's detection, the YARA match, the archive
 * nobody could open, the indicators with their path, the Windows program's structure.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import vm from "node:vm";
import { ROOT } from "../../../src/common/config.ts";
import { startTestClamd } from "../../helpers/clamd.ts";
import { MINGW } from "../../helpers/executables.ts";
import type { Json } from "../../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../../helpers/real-process.ts";
import { analyse, BIDI_NAME, bundle, largeTree, MARKUP_NAME, RULES } from "../../helpers/report-samples.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";

const window = {} as { loupeReportModel: { build(result: unknown): Json; shown(text: string): string } };
vm.runInNewContext(
  readFileSync(path.join(ROOT, "src", "intel", "admin", "static", "report-model.js"), "utf8"),
  { window },
);
const { build, shown } = window.loupeReportModel;
/** The model's values made in this realm (the script's arrays are the sandbox's own). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("the report's model of a files result", { skip: skipUnlessCommands("clamd", "zip", MINGW) }, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let files: RealProcess;
  let model: Json;
  before(async () => {
    clamd = await startTestClamd();
    files = await startFilesProcess({
      CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
      SCAN_TIMEOUT_MS: "30000",
    });
    model = build(await analyse(files.url, await bundle(), "bundle.zip", { rules: RULES }));
  });
  after(async () => {
    await files?.close();
    await clamd?.stop();
  });

  it("rebuilds the tree from the node paths, names with markup and bidi controls included", () => {
    const names = plain(model.root.children.map((n: Json) => n.name)).sort();
    assert.deepEqual(
      names,
      [BIDI_NAME, MARKUP_NAME, "eicar.com", "locked.zip", "notes.txt", "photo.png", "tool.exe"].sort(),
    );
    const locked = model.byPath.get("bundle.zip › locked.zip");
    assert.equal(locked.children[0].name, "secret.txt");
    assert.equal(locked.children[0].status, "encrypted");
    assert.equal(locked.children[0].parent, locked);
  });

  it("hangs EICAR's detection and the YARA match on their nodes, and counts them up the tree", () => {
    const eicar = model.byPath.get("bundle.zip › eicar.com");
    assert.equal(eicar.detections[0].engine, "antivirus");
    assert.match(eicar.detections[0].name, /EICAR/);
    assert.equal(model.byPath.get("bundle.zip › notes.txt").matches[0].rule, "call_home");
    // The root: the bundle's own bytes match the rule too (stored zip), plus what is inside.
    assert.ok(model.root.alerts >= 2);
    assert.equal(model.verdict.level, "malicious");
  });

  it("says what was not scanned, and where", () => {
    const secret = model.byPath.get("bundle.zip › locked.zip › secret.txt");
    assert.deepEqual(plain(secret.notScanned.map((n: Json) => n.processor)).sort(), [
      "antivirus",
      "rulematch",
    ]);
  });

  it("groups indicators by type with the node they were found in", () => {
    const groups = new Map(model.indicators.groups);
    const urls = groups.get("URL") as Json[];
    assert.deepEqual(plain(urls.map((u) => [u.value, u.paths])), [
      ["http://evil-login.top/verify?id=1", ["bundle.zip › notes.txt"]],
    ]);
    assert.ok(groups.has("IPV4") && groups.has("DOMAIN") && groups.has("SHA256"));
    assert.equal(model.byPath.get("bundle.zip › notes.txt").indicators.length, 4);
  });

  it("keeps the Windows program's structure on its node", () => {
    const exe = model.byPath.get("bundle.zip › tool.exe").executable;
    assert.equal(exe.format, "pe");
    assert.equal(exe.architecture, "x86-64");
  });

  it("makes a 1,000-node tree of nested zips whole, every node under its archive", async () => {
    const large = build(await analyse(files.url, largeTree(), "large.zip"));
    assert.equal(large.nodes.length, 1 + 10 * 100);
    assert.equal(large.root.children.length, 10);
    for (const group of large.root.children) assert.equal(group.children.length, 99);
  });
});

describe("names shown as text", () => {
  it("shows bidi controls as their code point, and leaves everything else as it is", () => {
    assert.equal(shown(BIDI_NAME), "invoice<U+202E>txt.exe");
    assert.equal(shown(MARKUP_NAME), MARKUP_NAME);
  });
  it("builds a root from a result whose extractor failed, saying so", () => {
    const m = build({
      processors: {
        extractor: { success: false, processor_name: "extractor", error: "timeout", analysis: null },
        antivirus: {
          success: true,
          processor_name: "antivirus",
          analysis: { infected: false, filename: "x.bin" },
        },
      },
      verdict: { level: "incomplete", reasons: [] },
    });
    assert.equal(m.root.name, "x.bin");
    assert.equal(m.root.status, "failed");
    assert.deepEqual(JSON.parse(JSON.stringify(m.failures)), [{ processor: "extractor", error: "timeout" }]);
  });
});
