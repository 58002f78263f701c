/**
 * `./loupe analyze --intel`: the indicators a real files process finds, asked of a real intel
 * service whose VirusTotal is a loopback fake in the vendor's format. On SQLite only: the report is
 * the CLI's, and what intel stores is proved on both databases in test/intel (protocol, bulk).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { describeOnDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";
import type { Json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { runLoupe } from "../helpers/run-loupe.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const NOTE = `The dropper ${MD5} came from billing-update.com (CVE-2021-44228).\n`;

let files: RealProcess;
let dir: string;
let note: string;

before(async () => {
  // Only the indicators are needed: no clamd (a CLAMD_HOST keeps the service from starting one).
  files = await startFilesProcess({ CLAMD_HOST: "127.0.0.1", CLAMD_PORT: "1" });
  dir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyze-intel-"));
  note = path.join(dir, "note.txt");
  await writeFile(note, NOTE);
});
after(async () => {
  await files?.close();
  await rm(dir, { recursive: true, force: true });
});

function analyzeWithIntel(intel: { url: string; key: string }, ...args: string[]) {
  return runLoupe(
    [
      "analyze",
      "--json",
      "--url",
      files.url,
      "--processors",
      "iocs",
      "--intel",
      "--intel-url",
      intel.url,
      ...args,
      note,
    ],
    { INTEL_API_KEY: intel.key },
  );
}

const only = (stdout: string): Json => JSON.parse(stdout.trim());

describeOnDatabase("sqlite", "./loupe analyze --intel on sqlite", {}, (db) => {
  let vt: FakeVendor;
  let intel: TestIntelServer;
  before(async () => {
    vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
    intel = await db.startIntelServer({
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0" },
    });
    await addCredentials(intel.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt.close();
  });

  it("prints each vendor's outcome for the indicators intel looks up, and skips the others", async () => {
    const run = await analyzeWithIntel(intel);
    assert.equal(run.code, 0, run.stderr);
    const report = only(run.stdout);
    assert.deepEqual(
      report.indicators.map((i: Json) => i.type),
      ["MD5", "DOMAIN", "CVE"],
    );
    // VirusTotal looks up hashes and domains, not CVE ids: two questions, in the file's order.
    assert.equal(report.intel.length, 2);
    const [hash, domain] = report.intel;
    assert.equal(hash.type, "MD5");
    assert.equal(hash.value, MD5);
    assert.equal(hash.status, "found");
    assert.deepEqual(hash.vendors, { virustotal: { status: "ok", error: null } });
    assert.equal(hash.attributes.vt_score, "61/76");
    assert.equal(hash.attributes.is_malicious, "true");
    assert.equal(hash.events, 4);
    assert.equal(hash.error, null);
    assert.equal(domain.value, "billing-update.com");
    assert.equal(domain.status, "found");
    assert.deepEqual(domain.vendors, { virustotal: { status: "not_found", error: null } });
    assert.ok(vt.calls.includes(`GET /api/v3/files/${MD5}`), vt.calls.join("\n"));
    assert.ok(vt.calls.includes("GET /api/v3/domains/billing-update.com"), vt.calls.join("\n"));
    const text = await runLoupe(
      ["analyze", "--url", files.url, "--processors", "iocs", "--intel", "--intel-url", intel.url, note],
      { INTEL_API_KEY: intel.key },
    );
    assert.match(
      text.stdout,
      new RegExp(`^ {4}MD5 ${MD5}: MALICIOUS \\(score 61/76\\); virustotal ok; 4 event\\(s\\)$`, "m"),
    );
    assert.match(
      text.stdout,
      /^ {4}DOMAIN billing-update\.com: unknown to the vendors; virustotal not_found; 0 event\(s\)$/m,
    );
  });

  it("sends at most --intel-max indicators, and reports lookups unfinished at the time limit as pending", async () => {
    const capped = only((await analyzeWithIntel(intel, "--intel-max", "1")).stdout);
    assert.deepEqual(
      capped.intel.map((v: Json) => v.value),
      [MD5],
    );
    vt.delayMs = 15_000;
    const callsBefore = vt.calls.length;
    try {
      // A value never asked before, so intel must ask the (now silent) vendor.
      await writeFile(note, "Payload from slow-vendor-example.net today.\n");
      const run = await analyzeWithIntel(intel, "--intel-timeout", "2");
      const report = only(run.stdout);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(report.intel, [
        {
          type: "DOMAIN",
          value: "slow-vendor-example.net",
          status: "pending",
          vendors: {},
          attributes: {},
          events: 0,
          error: "no answer within the time limit",
        },
      ]);
      assert.ok(vt.calls.length > callsBefore, "the vendor was asked");
    } finally {
      vt.delayMs = 0;
      await writeFile(note, NOTE);
    }
  });

  it("says when nobody was asked (the subject's TLP keeps it from every vendor), not 'unknown'", async () => {
    const domain = "victim-portal-login.com";
    const red = { super_type: "OBSERVABLE", type: "DOMAIN", value: domain, tlp: "RED" };
    assert.equal((await pollUntilDone(intel, red)).status, 200);
    try {
      await writeFile(note, `Phished through ${domain} on Monday.\n`);
      const report = only((await analyzeWithIntel(intel)).stdout);
      assert.equal(report.intel[0].nobody_asked?.reason, "markings");
      const text = await runLoupe(
        ["analyze", "--url", files.url, "--processors", "iocs", "--intel", "--intel-url", intel.url, note],
        { INTEL_API_KEY: intel.key },
      );
      assert.match(text.stdout, new RegExp(`^ {4}DOMAIN ${domain}: nobody was asked: TLP:RED`, "m"));
      assert.doesNotMatch(text.stdout, /unknown to the vendors/);
      assert.ok(!vt.calls.some((c) => c.includes(domain)));
    } finally {
      await writeFile(note, NOTE);
    }
  });

  it("reports a refused API key in failures, and asks no vendor", async () => {
    const callsBefore = vt.calls.length;
    const report = only((await analyzeWithIntel({ url: intel.url, key: "0".repeat(40) })).stdout);
    assert.deepEqual(report.intel, []);
    assert.equal(report.failures[0].error_short, "intel_unavailable");
    assert.match(report.failures[0].error, /refused the API key \(HTTP 401\)/);
    assert.equal(vt.calls.length, callsBefore);
  });
});

describe("./loupe analyze --intel when intel cannot be used", () => {
  it("needs an API key (usage error, exit 2)", async () => {
    const run = await runLoupe(["analyze", "--url", files.url, "--intel", note]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /INTEL_API_KEY/);
  });

  it("reports an unreachable intel service in failures; the file's own analysis stands", async () => {
    const run = await analyzeWithIntel({ url: "http://127.0.0.1:1", key: "k".repeat(40) });
    assert.equal(run.code, 0, run.stderr);
    const report = only(run.stdout);
    assert.equal(report.verdict.indicators, 3);
    assert.deepEqual(report.intel, []);
    assert.equal(report.failures.length, 1);
    assert.equal(report.failures[0].processor, "intel");
    assert.equal(report.failures[0].error_short, "intel_unavailable");
    assert.match(report.failures[0].error, /cannot reach the intel service/);
  });
});
