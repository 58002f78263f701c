/**
 * Files analyses end to end, on SQLite and PostgreSQL: a real files process (with a real clamd)
 * behind a real intel server, fake vendors on loopback in their real formats and the offline IP
 * database. An upload goes pending → done with the files service's verdict; EICAR in an encrypted
 * zip opened with the upload's password is malicious at its path; the history finds it by a
 * child's sha256; the same file again is answered from storage with its age; another user's key
 * sees nothing; a RED file's indicators reach the offline IP database and the user's own MISP,
 * never the public vendor, and the graph links the file to them; an image gets a thumbnail only
 * those who may see its analysis see; hostile names are data; a file past the limit is 413.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { before, it } from "node:test";
import { auditPage } from "../../../src/intel/services/audit.ts";
import { createToken, createUser } from "../../../src/intel/store/accounts.ts";
import { EICAR, startTestClamd } from "../../helpers/clamd.ts";
import { multipartEmail } from "../../helpers/documents.ts";
import { pixelAt, RED, sizeOf, solid } from "../../helpers/images.ts";
import { type Json, json } from "../../helpers/json.ts";
import { type MarkingVendors, startMarkingVendors } from "../../helpers/marking-vendors.ts";
import { startFilesProcess } from "../../helpers/real-process.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { encryptedZip } from "../../helpers/sevenzip.ts";
import { describeAnalyses } from "./fixtures.ts";

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const SIGNATURE = "Loupe.Test.EICAR.UNOFFICIAL";
const PASSWORD = "not-in-any-list-7781";

/** `fields` and one file as a multipart body. */
function form(bytes: Buffer | string, name: string, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append("file", new Blob([typeof bytes === "string" ? bytes : new Uint8Array(bytes)]), name);
  return body;
}

/** A real files process with a real clamd behind it; closing it stops both. */
async function startFilesWithClamd() {
  const clamd = await startTestClamd();
  try {
    const socket = "socket" in clamd.address ? clamd.address.socket : "";
    const files = await startFilesProcess({ CLAMD_SOCKET: socket, SCAN_TIMEOUT_MS: "30000" });
    return {
      url: files.url,
      close: async () => {
        await files.close();
        await clamd.stop();
      },
    };
  } catch (err) {
    await clamd.stop();
    throw err;
  }
}

describeAnalyses(
  "files analyses through intel",
  { skip: skipUnlessCommands("clamd", "zip"), folder: "http" },
  startFilesWithClamd,
  ({ db, kind, folder, files }) => {
    let stack: MarkingVendors;
    let otherKey: string;
    const key = () => stack.server.key;
    const call = (pathname: string, init: RequestInit = {}, as = key()) =>
      fetch(stack.server.url + pathname, {
        ...init,
        headers: { authorization: `Token ${as}`, ...(init.headers as Record<string, string>) },
      });
    const upload = (bytes: Buffer | string, name: string, fields: Record<string, string> = {}) =>
      call("/api/analyses/", { method: "POST", body: form(bytes, name, fields) });
    const finished = async (id: string): Promise<Json> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const body = await json(await call(`/api/analyses/${id}/`));
        if (body.status !== "pending" || Date.now() > deadline) return body;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const analyse = async (bytes: Buffer | string, name: string, fields: Record<string, string> = {}) => {
      const res = await upload(bytes, name, fields);
      const body = await json(res);
      assert.equal(res.status, 202, JSON.stringify(body));
      assert.equal(body.status, "pending");
      assert.equal(res.headers.get("location"), `/api/analyses/${body.id}/`);
      return finished(body.id);
    };

    before(async () => {
      stack = folder.keep(
        await startMarkingVendors(db, {
          env: {
            FILES_URL: files().url,
            DATA_DIR: folder.dataDir,
            INTEL_ANALYSIS_MAX_BYTES: "200000",
            // A local source (the offline IP database) beside the own MISP and the public vendor.
            INTEL_CONNECTORS: "virustotal,misp,iplocation",
          },
        }),
      );
      const store = stack.server.services.store.db;
      const other = await createUser(store, `other${kind}`, "other-password", false);
      otherKey = (await createToken(store, other.id)).key;
    });

    it("analyses a file: pending, then done with the verdict and the tree, marked RED/RED by default", async () => {
      const text = `Minutes ${kind}: nothing to report.\n`;
      const done = await analyse(text, "minutes.txt");
      assert.equal(done.status, "done", JSON.stringify(done.error));
      assert.equal(done.verdict, "clean");
      assert.deepEqual(
        [done.tlp, done.pap, done.name, done.sha256],
        ["RED", "RED", "minutes.txt", sha256(text)],
      );
      assert.equal(done.result.verdict.level, "clean");
      assert.deepEqual(done.indicators, []);
      assert.equal(done.file_kept, false);
      assert.deepEqual(await readdir(path.join(folder.dataDir, "analyses")), [], "the file is not kept");
    });

    it("finds EICAR in a zip opened with the upload's password, at its path; the history finds it by the child's hash", async () => {
      const zip = await encryptedZip(
        { "eicar.com": EICAR, "readme.txt": "hello" },
        { password: PASSWORD, method: "zipcrypto" },
      );
      const name = `invoice-${kind}.zip`;
      const done = await analyse(zip, name, { password: PASSWORD, tlp: "amber" });
      assert.equal(done.verdict, "malicious", JSON.stringify(done.result?.verdict));
      assert.equal(done.tlp, "AMBER");
      assert.deepEqual(done.result.verdict.reasons[0], {
        path: `${name} › eicar.com`,
        processor: "antivirus",
        detail: SIGNATURE,
      });
      const found = await json(await call(`/api/analyses/?q=${sha256(EICAR).toUpperCase()}`));
      assert.ok(
        found.results.some((r: Json) => r.id === done.id),
        JSON.stringify(found),
      );
      assert.ok(
        found.results.every((r: Json) => r.result === undefined),
        "a list carries no trees",
      );
      const byName = await json(await call("/api/analyses/?q=EICAR.CO&verdict=malicious"));
      assert.ok(byName.results.some((r: Json) => r.id === done.id));
      const clean = await json(await call(`/api/analyses/?q=${sha256(EICAR)}&verdict=clean`));
      assert.equal(clean.count, 0);
      const noPassword = await analyse(zip, name);
      assert.equal(noPassword.cached_from, null, "another cache key without the password");
      assert.notEqual(noPassword.verdict, "clean", "an archive nobody could open is never clean");
    });

    it("finds EICAR in a phishing mail's encrypted attachment whose password is in the body, and the mail by the attachment's hash", async () => {
      const attachment = await encryptedZip(
        { "eicar.com": EICAR },
        { password: "tulip-42", method: "zipcrypto" },
      );
      const mail = multipartEmail({
        subject: `Invoice ${kind}`,
        body: "Hello,\nthe invoice is attached. The password is tulip-42\nRegards",
        attachmentName: "invoice.zip",
        attachment,
      });
      const done = await analyse(Buffer.from(mail), "invoice.eml");
      assert.equal(done.verdict, "malicious", JSON.stringify(done.result?.verdict));
      assert.equal(done.result.verdict.reasons[0].path, "invoice.eml › invoice.zip › eicar.com");
      const found = await json(await call(`/api/analyses/?q=${sha256(attachment)}`));
      assert.deepEqual(
        found.results.map((r: Json) => r.id),
        [done.id],
      );
    });

    it("answers the same file with the same rules from storage, with its age, without the files service", async () => {
      const text = `cache me ${kind}`;
      const first = await analyse(text, "a.txt");
      const res = await upload(text, "b.txt");
      const again = await json(res);
      assert.equal(res.status, 200, JSON.stringify(again));
      assert.deepEqual([again.status, again.cached_from, again.name], ["done", first.id, "b.txt"]);
      assert.notEqual(again.id, first.id);
      assert.ok(Number.isInteger(again.age_seconds) && again.age_seconds >= 0);
      assert.deepEqual(again.result, first.result);
      const byName = await json(await call("/api/analyses/?q=b.txt"));
      assert.ok(
        byName.results.some((r: Json) => r.id === again.id),
        "found under its own name",
      );
      const withRules = await upload(text, "c.txt", { rules: "rule r { condition: true }" });
      assert.equal(withRules.status, 202, "other rules: analysed again");
      const ruled = await finished((await json(withRules)).id);
      assert.equal(ruled.result.processors.rulematch.analysis.matches[0].rule, "r");
    });

    it("shows another user's key nothing of an analysis until an administrator shares it", async () => {
      const done = await analyse(`private ${kind}`, "private.txt");
      const res = await call(`/api/analyses/${done.id}/`, {}, otherKey);
      assert.deepEqual([res.status, (await json(res)).code], [404, "not_found"]);
      const list = await json(await call("/api/analyses/", {}, otherKey));
      assert.ok(!list.results.some((r: Json) => r.id === done.id));
      const share = (as: string) =>
        call(
          `/api/analyses/${done.id}/share/`,
          { method: "POST", headers: { "content-type": "application/json" }, body: '{"shared":true}' },
          as,
        );
      const refused = await share(otherKey);
      assert.equal(refused.status, 404, "not even told it exists");
      const shared = await share(key());
      assert.equal(shared.status, 200, JSON.stringify(await json(shared.clone())));
      assert.equal((await json(await call(`/api/analyses/${done.id}/`, {}, otherKey))).shared, true);
      const own = await share(otherKey);
      assert.deepEqual([own.status, (await json(own)).code], [403, "admin_only"]);
    });

    it("enriches a RED file's indicators through the user's own MISP only, and links the file to them in the graph", async () => {
      const domain = `bad-analysis-${kind}.com`;
      const text = `Wire the money, details at https://${domain}/pay now (from 185.165.171.105).\n`;
      const done = await analyse(text, "note.txt");
      const vtBefore = stack.vt.calls.length;
      const res = await call(`/api/analyses/${done.id}/enrich/`, { method: "POST" });
      const enriched = await json(res);
      assert.equal(res.status, 200, JSON.stringify(enriched));
      const asked = enriched.indicators.find((i: Json) => i.type === "DOMAIN" && i.value === domain);
      assert.ok(asked?.request_id, JSON.stringify(enriched));
      assert.deepEqual(asked.paths, ["note.txt"], JSON.stringify(done.result.processors.iocs));
      const known = async (value: string): Promise<Json> => {
        for (const deadline = Date.now() + 60_000; ; ) {
          const body = await json(await call(`/api/analyses/${done.id}/`));
          const found = body.indicators.find((i: Json) => i.value === value);
          if (found.verdict !== "pending" || Date.now() > deadline) return found;
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const indicator = await known(domain);
      assert.equal(indicator.verdict, "not_found", JSON.stringify(indicator));
      assert.equal(indicator.sources.misp, "not_found");
      assert.equal(indicator.sources.virustotal, "skipped");
      const ip = await known("185.165.171.105");
      assert.deepEqual([ip.verdict, ip.sources.iplocation], ["found", "ok"], JSON.stringify(ip));
      assert.ok(
        stack.misp.calls.some((c) => c.body.includes(domain)),
        "the own MISP was asked",
      );
      assert.equal(stack.vt.calls.length, vtBefore, `the public vendor heard nothing: ${stack.vt.calls}`);
      // An investigation of the domain (unmarked: the stored RED sticks) shows the file it was in.
      const ask = await call("/api/request/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: domain }),
      });
      const doc = await json(ask);
      assert.equal(ask.status, 200, JSON.stringify(doc));
      const sample = doc.entities.find((e: Json) => e.name === done.sha256);
      assert.equal(sample?.type?.short_name, "SAMPLE", JSON.stringify(doc.entities));
      assert.equal(sample.attributes.file_name, "note.txt");
      assert.equal(stack.vt.calls.length, vtBefore, "still nothing after the unmarked ask");
      const audit = await auditPage(stack.server.services, {
        limit: 20,
        offset: 0,
        action: "analysis.enrich",
      });
      assert.ok(
        audit.entries.some((e) => e.target === done.id && e.detail.includes("TLP:RED PAP:RED")),
        JSON.stringify(audit.entries),
      );
    });

    it("keeps a PNG thumbnail of an image, for whoever may see the analysis, also when the cache answers", async () => {
      const photo = await solid(640, 320, RED).png().toBuffer();
      const done = await analyse(photo, `photo-${kind}.png`);
      assert.deepEqual([done.status, done.thumbnail], ["done", true], JSON.stringify(done.error));
      const res = await call(`/api/analyses/${done.id}/thumbnail/`);
      assert.deepEqual([res.status, res.headers.get("content-type")], [200, "image/png"]);
      const png = Buffer.from(await res.arrayBuffer());
      // Fits the 256-pixel box (INTEL_ANALYSIS_THUMBNAIL_SIDE), its ratio kept.
      assert.deepEqual(await sizeOf(png), { width: 256, height: 128, format: "png" });
      assert.deepEqual(await pixelAt(png, 128, 64), [255, 0, 0, 255]);
      const stranger = await call(`/api/analyses/${done.id}/thumbnail/`, {}, otherKey);
      assert.deepEqual([stranger.status, (await json(stranger)).code], [404, "not_found"]);
      const again = await json(await upload(photo, "again.png"));
      assert.deepEqual([again.cached_from, again.thumbnail], [done.id, true]);
      assert.equal((await call(`/api/analyses/${again.id}/thumbnail/`)).status, 200);
      const text = await analyse(`not an image ${kind}`, "note.txt");
      assert.equal(text.thumbnail, false);
      const none = await call(`/api/analyses/${text.id}/thumbnail/`);
      assert.deepEqual([none.status, (await json(none)).code], [404, "no_thumbnail"]);
    });

    it("keeps a hostile name as data, refuses a file past the limit with 413 and other bodies with 400, leaving no file", async () => {
      // Slashes inside markup are part of the name, not folders.
      const hostile = "<img src=x onerror=alert(1)><svg onload=alert('x')></svg><b>&lt;</b>.txt";
      const done = await analyse("x", `${hostile}\u0007`);
      assert.equal(done.name, hostile);
      const root = done.result.processors.extractor.analysis.extra.tree.nodes[0];
      assert.deepEqual([root.path, root.name], [hostile, hostile], "the files service keeps it whole too");
      const big = await upload(Buffer.alloc(200_001), "big.bin");
      assert.deepEqual([big.status, (await json(big)).code], [413, "file_too_large"]);
      const notMultipart = await call("/api/analyses/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.deepEqual([notMultipart.status, (await json(notMultipart)).code], [400, "not_multipart"]);
      const unknown = await upload("x", "x.txt", { colour: "red" });
      assert.deepEqual([unknown.status, (await json(unknown)).code], [400, "unknown_field"]);
      const badTlp = await upload("x", "x.txt", { tlp: "PURPLE" });
      assert.deepEqual([badTlp.status, (await json(badTlp)).code], [400, "invalid_tlp"]);
      assert.deepEqual(
        (await readdir(path.join(folder.dataDir, "analyses"))).filter((f) => !f.endsWith(".fields.json")),
        [],
        "refused uploads leave no file",
      );
    });
  },
);
