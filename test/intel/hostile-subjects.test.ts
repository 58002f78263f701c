/**
 * Hostile values for the subjects Colander's Pivot sends (DNS records, services, servers, threat
 * actors) against a real intel process: every answer is a 4xx or a lookup, vendors are only asked
 * on their own paths with the value encoded, and the attacked process still answers afterwards.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { type IntelProcess, startIntelProcessWithKey } from "../helpers/intel-process.ts";
import { assertSurvived } from "../helpers/real-process.ts";

const HOSTILE: Array<[string, string, string]> = [
  ["OBSERVABLE", "SERVICE", "1.2.3.4:0"],
  ["OBSERVABLE", "SERVICE", "1.2.3.4:99999"],
  ["OBSERVABLE", "SERVICE", "../../../etc/passwd:80"],
  ["OBSERVABLE", "SERVICE", "[::1]:80/tcp <script>"],
  ["OBSERVABLE", "SERVICE", `1.2.3.4:80/tcp ${"x".repeat(2000)}`],
  ["OBSERVABLE", "DNS_RECORD", "A ../../admin 1.2.3.4"],
  ["OBSERVABLE", "DNS_RECORD", "A example.org"],
  ["OBSERVABLE", "DNS_RECORD", "A example.org?key=x#frag 1.2.3.4"],
  ["OBSERVABLE", "DNS_RECORD", `TXT example.org ${"v=spf1 ".repeat(250)}`],
  ["DEVICE", "SERVER", "http://169.254.169.254/latest/meta-data/"],
  ["DEVICE", "SERVER", "../../dns/resolve"],
  ["DEVICE", "SERVER", "example.org&key=stolen"],
  ["ACTOR", "THREAT_ACTOR", 'APT"]} "x'],
  ["ACTOR", "THREAT_ACTOR", "line\nbreak\u0000nul"],
  ["ACTOR", "THREAT_ACTOR", "'; drop table entities; --"],
  ["ACTOR", "THREAT_ACTOR", "../../api/v1/indicators/IPv4/1.1.1.1/general"],
  ["ACTOR", "THREAT_ACTOR", "é".repeat(1024)],
];

/** The paths each vendor's API has: anything else would mean a value escaped its place. */
const OWN_PATHS =
  /^\/(shodan\/host\/|dns\/domain\/|dns\/resolve\?|api\/v1\/search\/pulses\?|api\/v1\/$|attributes\/restSearch$)/;

describe("hostile DNS records, services, servers and threat actors against a real intel process", () => {
  let server: IntelProcess;
  let vendors: SimpleFake;
  before(async () => {
    vendors = await startFakeVendor({
      "/api/v1/": { body: { query_status: "no_result", data: "Your search did not yield any results" } },
      "/attributes/restSearch": { body: { response: { Attribute: [] } } },
    });
    server = await startIntelProcessWithKey({
      INTEL_CONNECTORS: "shodan,otx,threatfox,misp",
      INTEL_VENDOR_URL_SHODAN: vendors.url,
      INTEL_VENDOR_URL_OTX: vendors.url,
      INTEL_VENDOR_URL_THREATFOX: vendors.url,
      INTEL_VENDOR_RETRIES: "0",
      INTEL_RETRY_AFTER: "1",
    });
    const store = await openStore(`sqlite:${server.dir}/intel.db`);
    try {
      for (const vendor of ["shodan", "otx", "threatfox"])
        await addCredentials(store.db, vendor, { api_key: "k" });
      await addCredentials(store.db, "misp", { api_key: "k", url: vendors.url });
    } finally {
      await store.close();
    }
  });
  after(async () => {
    await server.close();
    await vendors.close();
  });

  const post = (super_type: string, type: string, value: string) =>
    server.api("/api/request/", { method: "POST", body: JSON.stringify({ super_type, type, value }) });

  it("answers each with a 4xx or a finished lookup whose root is the value, never a 5xx", async () => {
    for (const [superType, type, value] of HOSTILE) {
      let res = await post(superType, type, value);
      for (let i = 0; res.status === 201 && i < 200; i++) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 50));
        res = await post(superType, type, value);
      }
      const body = await res.text();
      assert.ok(
        res.status === 200 || (res.status >= 400 && res.status < 500),
        `${type} ${JSON.stringify(value)}: ${res.status} ${body.slice(0, 200)}`,
      );
      if (res.status === 200) assert.equal(JSON.parse(body).root_entity.name, value.trim());
    }
  });

  it("asked vendors only on their own paths, with values encoded", () => {
    assert.ok(vendors.calls.length > 0);
    for (const call of vendors.calls) {
      assert.match(call.url, OWN_PATHS, call.url);
      assert.doesNotMatch(call.url, /\/\.\.\/|[\n\0<>"]|169\.254/, call.url);
      if (call.url.includes("/dns/resolve?"))
        assert.equal(new URL(call.url, vendors.url).searchParams.getAll("key").length, 1);
    }
  });

  it("still answers from the same process", async () => {
    await assertSurvived(server, () => server.api("/api/types/supported/"));
  });
});
