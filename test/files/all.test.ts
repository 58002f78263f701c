import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EICAR, startTestClamd } from "../helpers/clamd.ts";
import { multipartEmail } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { storedZip } from "../helpers/zip.ts";

const RULES = 'rule has_billing { strings: $a = "billing" condition: $a }';

/** Drops what legitimately differs between two runs on the same file (timings, cache flags). */
function masked(value: Json): Json {
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (/(^|_)ms$|duration|elapsed|cached/i.test(k)) continue;
    out[k] = masked(v);
  }
  return out;
}

describe("POST /analyzer/all against a real clamd", { skip: skipUnlessCommands("clamd") }, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let server: TestFilesServer;
  before(async () => {
    clamd = await startTestClamd(10_000_000);
    server = await startFilesServer({
      CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
      SCAN_TIMEOUT_MS: "20000",
    });
  });
  after(async () => {
    await server.close();
    await clamd.stop();
  });

  const eml = multipartEmail({
    subject: "Invoice from billing-update[.]com",
    body: "Pay at hxxps://billing-update[.]com/pay?id=7 today.",
    attachmentName: "docs.zip",
    attachment: storedZip({ "eicar.txt": EICAR }),
  });

  async function all(fields: Record<string, string> = {}, query = "") {
    const res = await postFile(`${server.url}/analyzer/all${query}`, eml, "invoice.eml", fields);
    return { status: res.status, body: await json(res) };
  }

  it("gives every processor's entry exactly as its own route does for the same file", async () => {
    const { status, body } = await all({ rules: RULES });
    assert.equal(status, 200);
    assert.equal(body.success, true, JSON.stringify(body));
    assert.deepEqual(Object.keys(body.processors), ["extractor", "antivirus", "rulematch", "iocs"]);
    for (const name of Object.keys(body.processors)) {
      const own = await json(
        await postFile(`${server.url}/analyzer/${name}`, eml, "invoice.eml", { rules: RULES }),
      );
      assert.deepEqual(masked(body.processors[name]), masked(own.processors[name]), name);
      if (name === "extractor") assert.equal(body.content, own.content);
    }
    assert.equal(body.processors.antivirus.analysis.infected, true);
    assert.equal(body.processors.rulematch.analysis.matches.length, 1);
  });

  it("leaves rulematch out without rules, and runs only the chosen processors", async () => {
    assert.deepEqual(Object.keys((await all()).body.processors), ["extractor", "antivirus", "iocs"]);
    const byField = await all({ processors: "iocs,antivirus" });
    assert.deepEqual(Object.keys(byField.body.processors), ["antivirus", "iocs"]);
    assert.equal(byField.body.content, null);
    const byQuery = await all({}, "?processors=extractor");
    assert.deepEqual(Object.keys(byQuery.body.processors), ["extractor"]);
    assert.match(byQuery.body.content, /Pay at/);
  });

  it("refuses unknown processor names, and rulematch chosen without rules, with a 400", async () => {
    const unknown = await all({ processors: "extractor,tika2" });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, "unknown_processor");
    assert.match(unknown.body.detail, /tika2/);
    assert.equal((await all({}, "?processors=nope")).status, 400);
    const noRules = await all({ processors: "rulematch" });
    assert.equal(noRules.status, 400);
    assert.equal(noRules.body.code, "no_rules");
  });

  it("reports one processor's failure in its entry without failing the others", async () => {
    const noClamd = await startFilesServer({ CLAMD_SOCKET: `${clamd.dir}/missing.sock` });
    try {
      const res = await postFile(`${noClamd.url}/analyzer/all`, eml, "invoice.eml", { rules: RULES });
      const body = await json(res);
      assert.equal(res.status, 200);
      assert.equal(body.success, false);
      assert.equal(body.error_short, "processor_failed");
      assert.match(body.error, /antivirus/);
      assert.equal(body.processors.antivirus.success, false);
      assert.equal(typeof body.processors.antivirus.error_short, "string");
      for (const name of ["extractor", "rulematch", "iocs"]) {
        assert.equal(body.processors[name].success, true, name);
      }
      assert.match(body.content, /Pay at/);
    } finally {
      await noClamd.close();
    }
  });
});
