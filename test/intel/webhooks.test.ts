/**
 * Webhooks end to end on SQLite and PostgreSQL: a receiver on loopback gets a signed call when a
 * request or a batch finishes, after a 500 it is called again; a receiver that never answers
 * costs one time-limited attempt; non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type http from "node:http";
import { after, before, it } from "node:test";
import { deliveries, sendDueDeliveries } from "../../src/intel/services/webhooks.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { addDelivery } from "../../src/intel/store/webhooks.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import type { TestIntelServer } from "../helpers/intel-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";

/** What a receiver does: recompute the signature over `<timestamp>.<body>` and compare. */
function verify(secret: string, call: { headers: http.IncomingHttpHeaders; body: string }): boolean {
  const timestamp = String(call.headers["x-loupe-timestamp"]);
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${call.body}`).digest("hex")}`;
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
  return fresh && call.headers["x-loupe-signature"] === expected;
}

async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const deliveryOf = async (server: TestIntelServer, target: string, status: string) => {
  const log = await json(await server.api("/api/webhook/deliveries/"));
  return log.deliveries.find((d: Json) => d.target_id === target && d.status === status);
};

const putWebhook = (server: TestIntelServer, url: string) =>
  server.api("/api/webhook/", { method: "PUT", body: JSON.stringify({ url }) });

describeOnEachDatabase("webhooks", (db) => {
  let vt: FakeVendor;
  let receiver: Receiver;
  let server: TestIntelServer;
  let strict: TestIntelServer;
  let secret = "";
  before(async () => {
    vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
    receiver = await startReceiver();
    const env = { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0" };
    server = await db.startIntelServer({
      env: {
        ...env,
        WEBHOOK_ALLOW_PRIVATE: "1",
        WEBHOOK_RETRY_BASE_MS: "100",
        WEBHOOK_POLL_MS: "50",
        WEBHOOK_TIMEOUT_MS: "1000",
      },
    });
    // Same database, default settings: private addresses refused.
    strict = await db.startIntelServer({ env, worker: false });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await receiver.close();
    await vt.close();
  });

  it("calls the key's webhook, signed, when its request finishes; retried after a 500", async () => {
    const set = await putWebhook(server, `${receiver.url}/hook`);
    assert.equal(set.status, 201);
    const hook = await json(set);
    secret = hook.secret;
    assert.match(hook.secret, /^whsec_[0-9a-f]{64}$/);
    const shown = await json(await server.api("/api/webhook/"));
    assert.deepEqual(Object.keys(shown).sort(), ["created_at", "id", "url"], "the secret is shown once");

    receiver.plan = [500];
    const asked = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: MD5, force: true }),
    });
    assert.equal(asked.status, 201);
    const { id } = await json(asked);
    const delivered = await waitFor(() => deliveryOf(server, id, "delivered"));
    assert.equal(delivered.attempts, 2);
    assert.equal(delivered.last_status, 200);
    const calls = receiver.calls.filter((c) => JSON.parse(c.body).request?.id === id);
    assert.equal(calls.length, 2, "one failed call (500), then the delivered one");
    for (const call of calls) {
      assert.ok(verify(hook.secret, call), "the signature verifies");
      assert.equal(call.headers["x-loupe-event"], "request.finished");
      assert.equal(call.headers["x-loupe-delivery"], delivered.id);
    }
    assert.equal(verify("whsec_wrong", calls[0] as (typeof calls)[0]), false);
    const body = JSON.parse(calls[1]?.body ?? "{}");
    assert.equal(body.request.status, "SUCCEEDED");
    assert.equal(body.request.value, MD5);
  });

  it("calls it when a batch finishes", async () => {
    const subjects = [
      { super_type: "OBSERVABLE", type: "MD5", value: "0".repeat(32) },
      { super_type: "OBSERVABLE", type: "MD5", value: "not-a-hash" },
    ];
    const created = await json(
      await server.api("/api/requests/", { method: "POST", body: JSON.stringify({ subjects }) }),
    );
    await waitFor(() => deliveryOf(server, created.id, "delivered"));
    const call = receiver.calls.find((c) => JSON.parse(c.body).batch?.id === created.id);
    assert.ok(call && verify(secret, call), "signed with the webhook's secret");
    const body = JSON.parse(call.body);
    assert.equal(body.event, "batch.finished");
    assert.deepEqual(body.batch.counts, { SUCCEEDED: 1 });
    assert.equal(body.batch.rejected, 1);
  });

  it("gives up on a receiver that never answers after its time limit, and keeps serving", async () => {
    const hook = await json(await putWebhook(server, `${receiver.url}/slow`));
    assert.ok(hook.secret);
    receiver.plan = ["hang"];
    const asked = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: "1".repeat(32), force: true }),
    });
    const { id } = await json(asked);
    const pendingAgain = await waitFor(async () => {
      const log = await json(await server.api("/api/webhook/deliveries/"));
      return log.deliveries.find((d: Json) => d.target_id === id && d.attempts >= 1 && d.last_error);
    });
    assert.match(pendingAgain.last_error, /timeout|aborted/i);
    assert.equal((await server.api("/api/types/")).status, 200);
    await waitFor(() => deliveryOf(server, id, "delivered"));
  });

  it("refuses loopback, private, link-local addresses and names resolving to them unless allowed", async () => {
    const refused = [
      "http://127.0.0.1:9/hook",
      "http://10.1.2.3/hook",
      "http://[::1]/hook",
      "http://localhost/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[::127.0.0.1]/hook",
      "http://[::1.2.3.4]/hook",
      "http://[::a00:1]/hook",
      "http://192.168.0.1/",
      "http://224.0.0.1/",
      "http://0.0.0.0/",
    ];
    for (const url of refused) {
      const res = await putWebhook(strict, url);
      assert.equal(res.status, 400, url);
      assert.equal((await json(res)).code, "webhook_address_refused", url);
    }
    for (const url of ["ftp://example.org/", "http://user:pw@example.org/", "not a url"]) {
      const res = await putWebhook(strict, url);
      assert.equal(res.status, 400, url);
      assert.equal((await json(res)).code, "invalid_webhook_url", url);
    }
    assert.equal((await strict.api("/api/webhook/")).status, 404);
  });
});

describeOnEachDatabase("webhook addresses checked again at each call", (db) => {
  let receiver: Receiver;
  let permissive: TestIntelServer;
  let strict: TestIntelServer;
  before(async () => {
    receiver = await startReceiver();
    // No workers: this test sends the deliveries itself, with one setting or the other.
    permissive = await db.startIntelServer({
      env: { WEBHOOK_ALLOW_PRIVATE: "1" },
      worker: false,
    });
    strict = await db.startIntelServer({ worker: false });
  });
  after(async () => {
    await receiver.close();
  });

  it("refuses at call time a loopback URL set while it was allowed, and sends it when allowed", async () => {
    const hook = await json(await putWebhook(permissive, `${receiver.url}/hook`));
    const body = JSON.stringify({ event: "request.finished", request: { id: "r-1" } });
    await addDelivery(permissive.services.store.db, {
      webhookId: hook.id,
      event: "request.finished",
      targetId: "r-1",
      body,
    });
    assert.equal(await sendDueDeliveries(strict.services), 1);
    assert.equal(receiver.calls.length, 0, "no call left for a loopback address");
    const [refused] = await deliveries(strict.services, undefined, 10);
    assert.equal(refused?.status, "pending");
    assert.equal(refused?.attempts, 1);
    assert.match(refused?.last_error ?? "", /127\.0\.0\.1 \(loopback\)/);

    await permissive.services.store.db
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: "" })
      .execute();
    assert.equal(await sendDueDeliveries(permissive.services), 1);
    assert.equal(receiver.calls.length, 1);
    assert.equal(receiver.calls[0]?.body, body);
    const [delivered] = await deliveries(permissive.services, undefined, 10);
    assert.equal(delivered?.status, "delivered");
  });
});
