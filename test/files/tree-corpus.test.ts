/**
 * Look inside before saying "clean": EICAR hidden in the commonest delivery shapes (a zip with a
 * listed password, a 7z with encrypted names, zip › zip › encrypted zip, a mail whose body gives
 * the password, a PDF attachment, a DOCX embedded object, an MSG attachment) must be detected at
 * its node path, the same shapes around a clean file must stay clean, and an archive nobody can
 * open is `incomplete`, never clean — against a real files process and a real clamd.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { EICAR, startTestClamd } from "../helpers/clamd.ts";
import { multipartEmail } from "../helpers/documents.ts";
import { gccElf } from "../helpers/executables.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { encryptedZip } from "../helpers/sevenzip.ts";
import { corpus, type Shape } from "../helpers/tree-corpus.ts";
import { storedZip } from "../helpers/zip.ts";

const SIGNATURE = "Loupe.Test.EICAR.UNOFFICIAL";
const CLEAN = Buffer.from("Minutes of the Tuesday meeting: nothing to report.\n");

describe("the analysis tree: every child scanned, one verdict", {
  skip: skipUnlessCommands("clamd", "zip", "7zz", "qpdf"),
}, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let files: RealProcess;
  let infected: Shape[];
  let clean: Shape[];
  before(async () => {
    clamd = await startTestClamd();
    const socket = "socket" in clamd.address ? clamd.address.socket : "";
    [files, infected, clean] = await Promise.all([
      startFilesProcess({ CLAMD_SOCKET: socket, SCAN_TIMEOUT_MS: "30000" }),
      corpus(EICAR),
      corpus(CLEAN),
    ]);
  });
  after(async () => {
    await files?.close();
    await clamd?.stop();
  });

  const post = async (
    route: string,
    shape: { bytes: Buffer; name: string },
    fields: Record<string, string> = {},
  ) => {
    const res = await postFile(`${files.url}${route}`, shape.bytes, shape.name, fields);
    assert.equal(res.status, 200);
    return json(res);
  };

  it("detects EICAR in each shape at its path, in /analyzer/antivirus and in the verdict of /analyzer/all", async () => {
    for (const shape of infected) {
      const av = (await post("/analyzer/antivirus", shape)).processors.antivirus;
      assert.equal(av.success, true, `${shape.name}: ${av.error}`);
      assert.equal(av.analysis.infected, true, shape.name);
      assert.equal(av.analysis.description, `${SIGNATURE} in ${shape.path}`);
      assert.equal(av.analysis.extra.complete, true, shape.name);
      assert.deepEqual(
        av.analysis.extra.detections.map((d: Json) => d.path),
        [shape.path],
      );
      const all = await post("/analyzer/all", shape);
      assert.equal(all.verdict.level, "malicious", shape.name);
      assert.deepEqual(all.verdict.reasons[0], {
        path: shape.path,
        processor: "antivirus",
        detail: SIGNATURE,
      });
    }
  });

  it("keeps the same shapes around a clean file clean, with every node analysed and hashed", async () => {
    for (const shape of clean) {
      const all = await post("/analyzer/all", shape);
      assert.deepEqual(all.verdict, { level: "clean", reasons: [] }, shape.name);
      const av = all.processors.antivirus.analysis;
      assert.deepEqual([av.infected, av.extra], [false, null], shape.name);
      const nodes: Json[] = all.processors.extractor.analysis.extra.tree.nodes;
      const payload = nodes.find((n) => n.path === shape.path);
      assert.ok(payload, `${shape.name}: no node at ${shape.path} in ${nodes.map((n) => n.path).join(", ")}`);
      assert.equal(payload.status, "analysed");
      assert.equal(payload.depth, shape.path.split(" › ").length - 1);
      assert.equal(payload.hashes.sha256, createHash("sha256").update(CLEAN).digest("hex"));
      assert.match(payload.hashes.sha512, /^[0-9a-f]{128}$/);
      assert.ok(nodes.every((n) => n.status === "analysed" && n.hashes?.md5));
    }
  });

  it("gives each indicator the path of the node whose text holds it", async () => {
    const pack = storedZip({
      "a.txt": "visit https://alpha-bad.net/x now",
      "inner.zip": storedZip({ "b.txt": "and 185.165.171.105 too" }),
    });
    const mail = multipartEmail({
      subject: "Pack",
      body: "the body says https://delta-bad.com/p",
      attachmentName: "pack.zip",
      attachment: pack,
    });
    const all = await post(
      "/analyzer/all",
      { name: "m.eml", bytes: Buffer.from(mail) },
      { processors: "extractor,iocs" },
    );
    const where = (entry: Json) =>
      Object.fromEntries(
        entry.analysis.indicators.map((i: Json) => [i.value, i.locations.map((l: Json) => l.path)]),
      );
    const expected = {
      "https://delta-bad.com/p": ["m.eml"],
      "delta-bad.com": ["m.eml"],
      "https://alpha-bad.net/x": ["m.eml › pack.zip › a.txt"],
      "alpha-bad.net": ["m.eml › pack.zip › a.txt"],
      "185.165.171.105": ["m.eml › pack.zip › inner.zip › b.txt"],
    };
    assert.deepEqual(where(all.processors.iocs), expected);
    assert.deepEqual(where({ analysis: all.processors.extractor.analysis.extra.iocs }), expected);
  });

  it("reads the structure of an executable child beside its node", {
    skip: skipUnlessCommands("gcc"),
  }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-tree-elf-"));
    try {
      const elf = await readFile(gccElf(dir));
      const all = await post("/analyzer/all", {
        name: "tools.zip",
        bytes: storedZip({ hello: elf, "readme.txt": "x" }),
      });
      const nodes: Json[] = all.processors.extractor.analysis.extra.tree.nodes;
      assert.equal(nodes.find((n) => n.path === "tools.zip › hello")?.executable?.format, "elf");
      assert.equal(nodes.find((n) => n.path === "tools.zip › readme.txt")?.executable, undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs YARA on every child: each match carries the child's path", async () => {
    const [locked] = infected;
    assert.ok(locked);
    const rules = 'rule eicar_string { strings: $a = "EICAR-STANDARD-ANTIVIRUS-TEST-FILE" condition: $a }';
    const body = await post("/analyzer/rulematch", locked, { rules });
    const matches: Json[] = body.processors.rulematch.analysis.matches;
    assert.deepEqual(
      matches.map((m) => [m.rule, m.path]),
      [["eicar_string", locked.path]],
    );
    const all = await post(
      "/analyzer/all",
      { ...locked, name: locked.name },
      { rules, processors: "rulematch" },
    );
    assert.deepEqual(all.verdict.reasons, [
      { path: locked.path, processor: "rulematch", detail: "YARA rule eicar_string" },
    ]);
    assert.equal(all.verdict.level, "suspicious");
  });

  it("answers incomplete, never clean, for an archive no listed password opens; says what was not scanned", async () => {
    const locked = {
      name: "unknown.zip",
      bytes: await encryptedZip(
        { "eicar.com": EICAR },
        { password: "no-one-knows-this", method: "zipcrypto" },
      ),
    };
    const all = await post("/analyzer/all", locked);
    assert.equal(all.verdict.level, "incomplete");
    assert.ok(all.verdict.reasons.some((r: Json) => r.path === "unknown.zip › eicar.com"));
    const av = all.processors.antivirus.analysis;
    assert.equal(av.infected, false);
    assert.deepEqual(av.extra, {
      complete: false,
      not_scanned: [{ path: "unknown.zip › eicar.com", reason: "no password opened it" }],
    });
    const node = all.processors.extractor.analysis.extra.tree.nodes.find((n: Json) => n.name === "eicar.com");
    assert.equal(node.status, "encrypted");
    // The caller's own password opens it: the same upload is then malicious.
    const opened = await post("/analyzer/all", locked, { passwords: "no-one-knows-this" });
    assert.equal(opened.verdict.level, "malicious");
  });
});

describe("ANTIVIRUS_ALERT_UNSCANNED: a child nobody can open reported as detected", {
  skip: skipUnlessCommands("clamd", "zip"),
}, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let server: TestFilesServer;
  before(async () => {
    clamd = await startTestClamd();
    server = await startFilesServer({
      CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
      ANTIVIRUS_ALERT_UNSCANNED: "true",
    });
  });
  after(async () => {
    await server?.close();
    await clamd?.stop();
  });

  it("answers infected with Loupe.Unscanned.Encrypted at the child's path; the verdict stays incomplete", async () => {
    const bytes = await encryptedZip(
      { "eicar.com": EICAR },
      { password: "no-one-knows-this", method: "zipcrypto" },
    );
    const av = await json(await postFile(`${server.url}/analyzer/antivirus`, bytes, "unknown.zip"));
    assert.equal(av.processors.antivirus.analysis.infected, true);
    assert.equal(
      av.processors.antivirus.analysis.description,
      "Loupe.Unscanned.Encrypted in unknown.zip › eicar.com",
    );
    const all = await json(await postFile(`${server.url}/analyzer/all`, bytes, "unknown.zip"));
    assert.equal(all.verdict.level, "incomplete");
  });
});
