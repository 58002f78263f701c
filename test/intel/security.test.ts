/** No secret reaches the logs; vendor calls cannot be pointed anywhere but the vendor's base URL. */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { createLogger } from "../../src/common/logger.ts";
import { vendorUrl } from "../../src/intel/connectors/http.ts";
import { CONNECTORS } from "../../src/intel/connectors/registry.ts";
import { VendorError } from "../../src/intel/connectors/types.ts";
import { vtObjectPath } from "../../src/intel/connectors/virustotal/index.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { vendorContext } from "../helpers/connectors.ts";
import { startFakeVendor } from "../helpers/fake-vendor.ts";
import { startFakeVirusTotal, VT_KEY } from "../helpers/fake-virustotal.ts";
import { startFaultVendor } from "../helpers/fault-vendor.ts";
import { freshDatabase, pollUntilDone, startIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

describe("secrets and SSRF", () => {
  it("never writes API keys, vendor keys or passwords into the logs, even at trace level", async () => {
    let captured = "";
    const sink = new Writable({
      write(chunk, _enc, done) {
        captured += chunk.toString();
        done();
      },
    });
    const vt = await startFakeVirusTotal({});
    const db = await freshDatabase("sqlite");
    const server = await startIntelServer({
      databaseUrl: db.url,
      logger: createLogger("trace", "intel", sink),
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url },
    });
    try {
      await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
      await pollUntilDone(server, { super_type: "OBSERVABLE", type: "MD5", value: "a".repeat(32) });
      await fetch(`${server.url}/api/types/`, {
        headers: { authorization: "Token wrong-key-material", cookie: "session=s3cret" },
      });
      assert.ok(captured.length > 0, "logs were written");
      assert.ok(!captured.includes(server.key), "the API key is not logged");
      assert.ok(!captured.includes(VT_KEY), "the vendor key is not logged");
      assert.ok(!captured.includes("wrong-key-material"), "a presented key is not logged");
      assert.ok(!captured.includes("s3cret"), "cookies are not logged");
    } finally {
      await server.close();
      await vt.close();
      await db.drop();
    }
  });

  it("keeps vendor requests on the vendor's origin whatever the subject value", () => {
    const base = new URL("https://www.virustotal.com");
    for (const evil of [
      "//evil.example/x",
      "http://evil.example/",
      "https://evil.example",
      "evil.example/x",
    ]) {
      assert.throws(() => vendorUrl(base, evil), VendorError, evil);
    }
    const hostile = ["http://evil.example/../../x", "a/../../b?c#d", "%2e%2e/", "@evil.example"];
    for (const value of hostile) {
      const path = vtObjectPath({ superType: "OBSERVABLE", type: "DOMAIN", value });
      const url = vendorUrl(base, path ?? "/");
      assert.equal(url.origin, base.origin, `${value} → ${url}`);
      assert.ok(
        url.pathname.startsWith("/api/v3/domains/"),
        `${value} stays under the route: ${url.pathname}`,
      );
    }
    const url = vendorUrl(
      base,
      vtObjectPath({ superType: "OBSERVABLE", type: "URL", value: "http://evil.example/?x=../../" }) ?? "/",
    );
    assert.equal(url.origin, base.origin);
  });

  it("keeps every connector's requests on its base URL, one path segment per value, whatever the value", async () => {
    const fake = await startFakeVendor({});
    const hostile = [
      "../../../admin",
      "a/b/c",
      "x?y=1#frag",
      "%2e%2e%2fetc%2fpasswd",
      "//evil.example/x",
      "http://evil.example/a/../b",
      "nul\u0000byte",
      "crlf\r\nX-Injected: 1",
    ];
    try {
      for (const connector of CONNECTORS) {
        const credentials = { api_key: "k", url: fake.url };
        for (const type of connector.supportedTypes) {
          const shape = async (value: string) => {
            const before = fake.calls.length;
            await connector.fetch({ ...type, value }, credentials, vendorContext(fake.url)).catch(() => null);
            return fake.calls
              .slice(before)
              .map((c) => `${c.method} ${new URL(c.url, fake.url).pathname.split("/").length}`);
          };
          const benign = await shape("benignvalue");
          for (const value of hostile) {
            // The same requests as a benign value, or none: a value a connector will not send
            // (a server that is no host name, a service that is no ip:port) cannot escape either.
            const got = await shape(value);
            if (got.length > 0)
              assert.deepEqual(
                got,
                benign,
                `${connector.id} ${type.type} ${JSON.stringify(value)}: same requests, same path depth`,
              );
          }
        }
      }
      assert.ok(fake.calls.length > 9 * CONNECTORS.length, `${fake.calls.length} requests made`);
      for (const c of fake.calls) assert.ok(!c.url.includes("/../"), c.url);
    } finally {
      await fake.close();
    }
  });

  it("limits requests per client on the intel API when RATE_LIMIT_PER_MINUTE is set", async () => {
    const db = await freshDatabase("sqlite");
    const server = await startIntelServer({
      databaseUrl: db.url,
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: "3" },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await server.api("/api/types/")).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const limited = await server.api("/api/types/");
      assert.equal((await json(limited)).code, "rate_limited");
      assert.ok(limited.headers.get("retry-after"));
    } finally {
      await server.close();
      await db.drop();
    }
  });

  it("never hands a vendor key to API clients in failure reasons, even for a key sent in the query string", async () => {
    const secret = "shodan-secret-key-0123456789";
    const failing = await startFaultVendor({ healthy: () => undefined, fault: "error" });
    const closed = await startFakeVendor({});
    const closedUrl = closed.url;
    await closed.close(); // nothing listens there any more: a network error
    try {
      for (const url of [failing.url, closedUrl]) {
        const db = await freshDatabase("sqlite");
        const server = await startIntelServer({
          databaseUrl: db.url,
          env: { INTEL_CONNECTORS: "shodan", INTEL_VENDOR_URL_SHODAN: url, INTEL_VENDOR_RETRIES: "0" },
        });
        try {
          await addCredentials(server.services.store.db, "shodan", { api_key: secret });
          const subject = { super_type: "OBSERVABLE", type: "IPV4", value: "192.0.2.77" };
          const res = await pollUntilDone(server, subject);
          const body = await res.text();
          assert.equal(res.status, 502, body);
          const request = await server.api(`/api/request/${JSON.parse(body).request}/`);
          const text = body + (await request.text());
          assert.match(text, /http_error|network_error/);
          assert.ok(!text.includes(secret), `the key leaked: ${text}`);
        } finally {
          await server.close();
          await db.drop();
        }
      }
      assert.ok(failing.calls.size > 0, "the failing vendor was asked");
    } finally {
      await failing.close();
    }
  });
});
