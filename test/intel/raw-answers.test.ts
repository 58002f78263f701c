/**
 * Vendors' raw answers: redacted (the set's values anywhere, values under secret-named keys), cut
 * to the size limit on a character boundary; kept per request on SQLite and PostgreSQL by a real
 * worker asking a fake VirusTotal, and forgotten with their request by the retention sweep.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { keepRawAnswer, REDACTED } from "../../src/intel/domain/raw-answers.ts";
import { requestWithRawAnswers } from "../../src/intel/services/browse.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { sweepRetention } from "../../src/intel/store/retention.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";

describe("keeping a raw answer", () => {
  const creds = { api_key: 'k3y"with\\quotes', url: "https://misp.example.org" };

  it("redacts the set's values wherever they are written, and values under secret-named keys", () => {
    const raw = {
      echo: `you sent ${creds.api_key}`,
      [creds.api_key]: "as a key",
      server: "https://misp.example.org/events/1",
      apikey: "other",
      Api_Key: 12345,
      nested: { Authorization: "Bearer abc", "x-auth-token": { deep: 1 }, password: "p", client_secret: "s" },
      tokens: null,
      short: "ab",
    };
    const kept = keepRawAnswer(raw, { ...creds, pin: "ab" }, 1_000_000)!;
    assert.equal(kept.truncated, false);
    assert.ok(!kept.body.includes("k3y"), kept.body);
    const back = JSON.parse(kept.body);
    assert.equal(back.echo, `you sent ${REDACTED}`);
    assert.equal(back[REDACTED], "as a key");
    assert.equal(back.server, "https://misp.example.org/events/1", "a server address is not a secret");
    for (const v of [back.apikey, back.Api_Key, back.nested.Authorization, back.nested["x-auth-token"]])
      assert.equal(v, REDACTED);
    assert.equal(back.nested.password, REDACTED);
    assert.equal(back.nested.client_secret, REDACTED);
    assert.equal(back.tokens, null);
    assert.equal(back.short, "ab", "values shorter than 4 characters are not searched for");
    assert.match(kept.body, /\n {2}"echo"/, "pretty-printed");
  });

  it("cuts to the limit without splitting a character, and says so; 0 keeps nothing", () => {
    const raw = { text: "é".repeat(5000) };
    const kept = keepRawAnswer(raw, {}, 1001)!;
    assert.equal(kept.truncated, true);
    assert.ok(Buffer.byteLength(kept.body) <= 1001);
    assert.ok(!kept.body.includes("\uFFFD"));
    assert.equal(kept.size, Buffer.byteLength(JSON.stringify(raw, null, 2)));
    assert.equal(keepRawAnswer(raw, {}, 0), undefined);
  });

  it("survives an answer nested deeper than the engine's stack", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const kept = keepRawAnswer({ deep }, {}, 1_000_000)!;
    assert.match(kept.body, /nested too deeply/);
  });
});

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const FILE = { super_type: "OBSERVABLE", type: "MD5", value: MD5 };
const LIMIT = 4096;

/** VirusTotal's file answer, with the key echoed back, secret-named fields and padding past LIMIT. */
function leakyFile(): unknown {
  return {
    meta: { echoed: `x-apikey was ${VT_KEY}`, access_token: "tok-123456", note: "<b>bold</b>" },
    ...(vtFixture("file") as object),
    padding: "p".repeat(LIMIT * 2),
  };
}

describeOnEachDatabase("raw answers kept per request", (db) => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  before(async () => {
    vt = await startFakeVirusTotal({ [`files/${MD5}`]: leakyFile() });
    server = await db.startIntelServer({
      env: {
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_VENDOR_RETRIES: "0",
        INTEL_CONNECTORS: "virustotal",
        INTEL_RAW_ANSWER_MAX_BYTES: String(LIMIT),
      },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt?.close();
  });

  const latestRequestId = async () =>
    (
      await server.services.store.db
        .selectFrom("requests")
        .select("id")
        .orderBy("created_at", "desc")
        .executeTakeFirstOrThrow()
    ).id;

  it("keeps each vendor's answer redacted and cut, and forgets it with its request", async () => {
    assert.equal((await pollUntilDone(server, FILE)).status, 200);
    const first = await latestRequestId();
    const found = await requestWithRawAnswers(server.services, first);
    assert.equal(found?.raw.length, 1);
    const [vtRaw] = found!.raw;
    assert.equal(vtRaw?.vendor, "virustotal");
    assert.equal(vtRaw?.truncated, true);
    assert.ok(vtRaw!.size > LIMIT * 2);
    assert.ok(Buffer.byteLength(vtRaw!.body) <= LIMIT);
    assert.ok(!vtRaw!.body.includes(VT_KEY), "the key never reaches the store");
    assert.ok(!vtRaw!.body.includes("tok-123456"));
    assert.match(vtRaw!.body, /"echoed": "x-apikey was \[redacted\]"/);
    assert.match(vtRaw!.body, /<b>bold<\/b>/, "stored as sent; the page escapes it");

    // A forced refresh makes a second request; once the first is past the window, the sweep
    // forgets it with its answers and keeps the second (the one the lookup names).
    const forced = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ ...FILE, force: true }),
    });
    assert.equal(forced.status, 201);
    await forced.arrayBuffer();
    // Unforced asks join the running request, then answer from it once it is done.
    assert.equal((await pollUntilDone(server, FILE)).status, 200);
    const second = await latestRequestId();
    assert.notEqual(second, first);
    await server.services.store.db
      .updateTable("requests")
      .set({ created_at: new Date(Date.now() - 10 * 86_400_000).toISOString() })
      .where("id", "=", first)
      .execute();
    await sweepRetention(server.services.store.db, 5);
    assert.equal(await requestWithRawAnswers(server.services, first), undefined);
    const rows = await server.services.store.db
      .selectFrom("request_raw_answers")
      .select("request_id")
      .execute();
    assert.deepEqual(
      rows.map((r) => r.request_id),
      [second],
    );
  });

  it("survives a vendor answering JSON nested 100,000 deep: the request fails, the answer is noted", async () => {
    vt.garbage = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    try {
      const res = await pollUntilDone(server, { ...FILE, value: "00112233445566778899aabbccddeeff" });
      assert.equal(res.status, 502);
      const found = await requestWithRawAnswers(server.services, await latestRequestId());
      assert.equal(found?.request.status, "FAILED");
      assert.match(found?.raw[0]?.body ?? "", /nested too deeply to be shown/);
    } finally {
      vt.garbage = null;
    }
    assert.equal((await server.api("/api/status/now/")).ok, true, "the server still answers");
  });
});
