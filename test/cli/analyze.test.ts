/**
 * `./loupe analyze` as a child process against a real files service (its own process, a real
 * clamd): the JSON report field by field, the text report, exit codes, YARA rules, thumbnails,
 * and paths that are not files (missing, a directory, a FIFO) — a clear error, never a hang.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { EICAR, startTestClamd } from "../helpers/clamd.ts";
import type { Json } from "../helpers/json.ts";
import { serveOnLoopback } from "../helpers/loopback.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { runLoupe } from "../helpers/run-loupe.ts";
import { encryptedZip } from "../helpers/sevenzip.ts";

const PHISH =
  "Pay at hxxps://billing-update[.]com/pay?id=7 or write to refunds@billing-update.com (CVE-2021-44228).\n";
const RULES = 'rule mentions_billing { strings: $a = "billing" condition: $a }';

const sha256 = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
const md5 = (b: string | Buffer) => createHash("md5").update(b).digest("hex");

/** The JSON lines of a `--json` run, parsed. */
function reports(stdout: string): Json[] {
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("./loupe analyze against a running files service", { skip: skipUnlessCommands("clamd") }, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let files: RealProcess;
  let dir: string;
  let phish: string;
  let eicar: string;
  before(async () => {
    clamd = await startTestClamd();
    files = await startFilesProcess({ CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "" });
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyze-test-"));
    phish = path.join(dir, "invoice.txt");
    eicar = path.join(dir, "eicar.com");
    await writeFile(phish, PHISH);
    await writeFile(eicar, EICAR);
  });
  after(async () => {
    await files?.close();
    await clamd?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const analyze = (...args: string[]) => runLoupe(["analyze", "--url", files.url, ...args]);

  it("--json reports a clean file's verdict, type, hashes and indicators, exit code 0", async () => {
    const run = await analyze("--json", phish);
    assert.equal(run.code, 0, run.stderr);
    const [r] = reports(run.stdout);
    assert.equal(r.file, phish);
    assert.equal(r.name, "invoice.txt");
    assert.equal(r.size, Buffer.byteLength(PHISH));
    assert.equal(r.analysed, true);
    assert.equal(r.error, null);
    assert.deepEqual(r.verdict, {
      level: "clean",
      reasons: [],
      malicious: false,
      antivirus: { status: "clean", signature: null, error: null },
      yara_matches: null,
      indicators: 4,
    });
    assert.equal(r.type, "text/plain");
    assert.equal(r.hashes.md5, md5(PHISH));
    assert.equal(r.hashes.sha256, sha256(PHISH));
    assert.match(r.hashes.ssdeep, /^\d+:/);
    assert.deepEqual(
      r.indicators.map((i: Record<string, string>) => `${i.super_type}/${i.type} ${i.value}`),
      [
        "OBSERVABLE/URL https://billing-update.com/pay?id=7",
        "OBSERVABLE/DOMAIN billing-update.com",
        "OBSERVABLE/EMAIL refunds@billing-update.com",
        "OBSERVABLE/CVE CVE-2021-44228",
      ],
    );
    assert.deepEqual(r.yara, []);
    assert.deepEqual(r.failures, []);
    assert.equal(r.thumbnail, null);
    assert.equal(r.intel, null);
    assert.deepEqual(Object.keys(r.result.processors), ["extractor", "antivirus", "iocs"]);
    assert.equal(r.result.content, PHISH.trim());
  });

  it("exits 1 when the antivirus detects a file, with one JSON line per file in order", async () => {
    const run = await analyze("--json", phish, eicar);
    assert.equal(run.code, 1, run.stderr);
    const [clean, infected] = reports(run.stdout);
    assert.equal(clean.file, phish);
    assert.equal(infected.file, eicar);
    assert.equal(infected.verdict.malicious, true);
    assert.deepEqual(infected.verdict.antivirus, {
      status: "infected",
      signature: "Loupe.Test.EICAR.UNOFFICIAL",
      error: null,
    });
    assert.equal(infected.hashes.md5, md5(EICAR));
  });

  it("prints a readable report, verdict first, and nothing but it on stdout", async () => {
    const run = await analyze(eicar, phish);
    assert.equal(run.code, 1);
    const [first = "", second = ""] = run.stdout.split(/^== /m).filter(Boolean);
    const lines = first.split("\n");
    assert.equal(lines[0], eicar);
    assert.equal(lines[1], "verdict:  MALICIOUS (Loupe.Test.EICAR.UNOFFICIAL); no rules; 0 indicator(s)");
    assert.match(first, /^type: +text\/plain$/m);
    assert.match(first, new RegExp(`^sha256: +${sha256(EICAR)}$`, "m"));
    assert.match(second, /^verdict: {2}clean; no rules; 4 indicator\(s\)$/m);
    assert.match(second, /^ {2}DOMAIN:\n {4}billing-update\.com$/m);
    assert.match(second, /^ {2}CVE:\n {4}CVE-2021-44228$/m);
    // Not a terminal: no progress line on stderr.
    assert.equal(run.stderr, "");
  });

  it("sends YARA rules with --rules and counts the matches", async () => {
    const rules = path.join(dir, "billing.yar");
    await writeFile(rules, RULES);
    const [r] = reports((await analyze("--json", "--rules", rules, phish)).stdout);
    assert.equal(r.verdict.yara_matches, 1);
    assert.deepEqual(r.yara, [{ rule: "mentions_billing", namespace: "default", tags: [] }]);
  });

  it("saves a thumbnail of an image with --thumbnails", async () => {
    const png = path.join(dir, "red.png");
    const bytes = await sharp({ create: { width: 300, height: 200, channels: 3, background: "red" } })
      .png()
      .toBuffer();
    await writeFile(png, bytes);
    const out = path.join(dir, "thumbs");
    const [r] = reports((await analyze("--json", "--thumbnails", out, png)).stdout);
    assert.equal(r.type, "image/png");
    assert.equal(r.thumbnail, path.join(out, `${sha256(bytes)}.png`));
    const meta = await sharp(await readFile(r.thumbnail)).metadata();
    assert.equal(meta.format, "png");
    assert.ok((meta.width ?? 0) <= 300 && (meta.width ?? 0) > 0);
  });

  it("sends --password values as the passwords field; the result names the one that opened each entry", async () => {
    const zip = path.join(dir, "locked.zip");
    await writeFile(
      zip,
      await encryptedZip({ "notes.txt": PHISH }, { password: "Kx9-case", method: "aes256" }),
    );
    const [r] = reports(
      (await analyze("--json", "--password", "wrong", "--password", "Kx9-case", zip)).stdout,
    );
    const entries = r.result.processors.extractor.analysis.extra.archive.entries;
    assert.deepEqual(
      entries.map((e: Json) => [e.name, e.encrypted, e.opened, e.password_used]),
      [["notes.txt", true, true, "Kx9-case"]],
    );
    assert.equal(r.verdict.indicators, 4, "the unlocked text is scanned");
    assert.deepEqual(
      r.tree.map((n: Json) => [n.path, n.depth, n.status]),
      [
        ["locked.zip", 0, "analysed"],
        ["locked.zip › notes.txt", 1, "analysed"],
      ],
    );
  });

  it("prints the verdict first, then the tree with each detection at its path", async () => {
    const zip = path.join(dir, "delivery.zip");
    await writeFile(
      zip,
      await encryptedZip({ "eicar.com": EICAR }, { password: "infected", method: "zipcrypto" }),
    );
    const run = await analyze(zip);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.split("\n");
    assert.match(
      lines[1] ?? "",
      /^verdict: {2}MALICIOUS \(Loupe\.Test\.EICAR\.UNOFFICIAL in delivery\.zip › eicar\.com\); no rules; \d+ indicator\(s\)$/,
    );
    assert.equal(lines[2], "reasons:");
    assert.equal(lines[3], "  delivery.zip › eicar.com: antivirus: Loupe.Test.EICAR.UNOFFICIAL");
    assert.equal(lines[4], "tree:");
    assert.match(lines[5] ?? "", /^ {2}delivery\.zip \(application\/zip, \d+ bytes\)$/);
    assert.match(
      lines[6] ?? "",
      /^ {4}eicar\.com \(text\/plain, 68 bytes\) ← antivirus: Loupe\.Test\.EICAR\.UNOFFICIAL$/,
    );
  });

  it("reports a missing path, a directory and a FIFO as errors (exit 3) and still analyses the rest", async () => {
    const fifo = path.join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const sub = path.join(dir, "folder");
    await mkdir(sub);
    const run = await analyze("--json", path.join(dir, "missing.txt"), sub, fifo, phish);
    assert.equal(run.code, 3, run.stderr);
    const [missing, folder, pipe, ok] = reports(run.stdout);
    assert.deepEqual([missing.analysed, missing.error.code], [false, "not_found"]);
    assert.deepEqual([folder.analysed, folder.error.code], [false, "not_a_file"]);
    assert.match(folder.error.detail, /is a directory/);
    assert.deepEqual([pipe.analysed, pipe.error.code], [false, "not_a_file"]);
    assert.match(pipe.error.detail, /FIFO/);
    assert.equal(ok.analysed, true);
  });

  it("reports the service's refusal and an unreachable service (exit 3)", async () => {
    const refused = reports((await analyze("--json", "--processors", "tika2", phish)).stdout)[0];
    assert.equal(refused.error.code, "unknown_processor");
    const run = await runLoupe(["analyze", "--json", "--url", "http://127.0.0.1:1", phish]);
    assert.equal(run.code, 3);
    assert.equal(reports(run.stdout)[0].error.code, "service_unreachable");
  });

  it("gives up on a service that reads the upload and never answers (--timeout), with exit 3", async () => {
    const silent = await serveOnLoopback(
      http.createServer((req) => {
        req.resume(); // reads everything, answers nothing
      }),
    );
    try {
      const run = await runLoupe(["analyze", "--json", "--url", silent.url, "--timeout", "2", phish, eicar]);
      assert.equal(run.code, 3);
      const [first, second] = reports(run.stdout);
      assert.equal(first.error.code, "timeout");
      assert.equal(second.error.code, "timeout", "each file has its own time limit");
    } finally {
      await silent.close();
    }
  });

  it("--local runs the same processors in the process, its own clamd included, and leaves no temp file", async () => {
    const tmp = path.join(dir, "tmp");
    await mkdir(tmp);
    const local = await runLoupe(["analyze", "--local", "--json", phish, eicar], { TMPDIR: tmp });
    assert.equal(local.code, 1, local.stderr);
    const remote = reports((await analyze("--json", phish, eicar)).stdout);
    const pick = (r: Json) => [r.file, r.analysed, r.verdict, r.type, r.hashes, r.indicators, r.failures];
    assert.deepEqual(reports(local.stdout).map(pick), remote.map(pick));
    assert.equal(remote[1].verdict.antivirus.signature, "Loupe.Test.EICAR.UNOFFICIAL");
    assert.deepEqual(await readdir(tmp), []);
  });

  it("refuses bad command lines with exit code 2", async () => {
    for (const args of [
      [],
      ["--bogus", phish],
      ["--local", "--url", files.url, phish],
      ["--timeout", "-3", phish],
    ]) {
      const run = await runLoupe(["analyze", ...args]);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^loupe: /);
    }
  });
});
