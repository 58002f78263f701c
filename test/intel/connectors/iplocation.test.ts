/**
 * The offline IP database (iplocation): its answers normalised exactly, and real lookups in the
 * installed ip-location-db packages — Google's resolver is AS15169 in the US, with no network.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { iplocation } from "../../../src/intel/connectors/iplocation/index.ts";
import { normalizeIplocation } from "../../../src/intel/connectors/iplocation/normalize.ts";
import { gate } from "../../../src/intel/domain/markings.ts";
import { fixture } from "../../helpers/connectors.ts";

const ip = (value: string, type = "IPV4") => ({ superType: "OBSERVABLE", type, value });
/** A fetch context whose HTTP fails: the connector must never use it. */
const offline = {
  http: {
    get: () => Promise.reject(new Error("the offline database made an HTTP call")),
    post: () => Promise.reject(new Error("the offline database made an HTTP call")),
  },
  signal: AbortSignal.timeout(60_000),
};

describe("iplocation connector", () => {
  it("normalizes an answer: ASN, organisation, range, country and the ASN entity it belongs to", () => {
    const f = normalizeIplocation(fixture("iplocation", "found"), ip("192.0.2.10"));
    assert.deepEqual(f.entities, [
      {
        superType: "OBSERVABLE",
        type: "IPV4",
        name: "192.0.2.10",
        attributes: {
          asn: "AS64500",
          as_owner: "Example Networks, Inc.",
          country: "NL",
          ip_range: "192.0.2.0 - 192.0.2.255",
          iplocation_data_date: "2026-06-17T19:00:00Z",
        },
      },
      {
        superType: "OBSERVABLE",
        type: "ASN",
        name: "AS64500",
        attributes: { operator: "Example Networks, Inc." },
      },
    ]);
    assert.deepEqual(
      f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      ["192.0.2.10 belongs to AS64500"],
    );
    const countryOnly = normalizeIplocation(fixture("iplocation", "country-only"), ip("2001:db8::1", "IPV6"));
    assert.deepEqual(countryOnly.entities[0]?.attributes, {
      country: "FR",
      iplocation_data_date: "2026-06-17T19:00:00Z",
    });
    for (const odd of [{}, { asn: "15169" }, { country: "united states" }, { asn: -1 }])
      assert.throws(() => normalizeIplocation(odd, ip("192.0.2.10")), JSON.stringify(odd));
  });

  it("answers 8.8.8.8 and Google's IPv6 resolver from the installed data, with no network", async () => {
    const v4 = normalizeIplocation(await iplocation.fetch(ip("8.8.8.8"), {}, offline), ip("8.8.8.8"));
    assert.equal(v4.entities[0]?.attributes?.asn, "AS15169");
    assert.equal(v4.entities[0]?.attributes?.country, "US");
    assert.match(v4.entities[0]?.attributes?.as_owner ?? "", /Google/);
    assert.equal(v4.entities[0]?.attributes?.ip_range, "8.8.8.0 - 8.8.8.255");
    const v6Subject = ip("2001:4860:4860::8888", "IPV6");
    const v6 = normalizeIplocation(await iplocation.fetch(v6Subject, {}, offline), v6Subject);
    assert.equal(v6.entities[0]?.attributes?.asn, "AS15169");
    // A quoted organisation in the CSV ("Cloudflare, Inc.") is read whole.
    const cf = (await iplocation.fetch(ip("1.1.1.1"), {}, offline)) as { asn: number; organisation: string };
    assert.deepEqual([cf.asn, cf.organisation], [13335, "Cloudflare, Inc."]);
  });

  it("knows nothing of private, reserved or malformed addresses", async () => {
    for (const value of ["10.0.0.1", "192.168.1.1", "127.0.0.1", "fe80::1", "not an address", "0.0.0.0"])
      assert.equal(await iplocation.fetch(ip(value), {}, offline), null, value);
  });

  it("is never held back by TLP or PAP: nothing leaves the machine", () => {
    const { allowed, skipped } = gate(
      [iplocation],
      { tlp: "RED", pap: "RED" },
      { tlp: "RED", pap: "RED" },
      { tlpAllow: {}, papAllow: {} },
    );
    assert.deepEqual([allowed.map((c) => c.id), skipped], [["iplocation"], {}]);
  });

  it("dates its data and names its licences for the Status page", () => {
    for (const source of iplocation.localData?.() ?? []) {
      assert.match(source.date ?? "", /^20\d\d-\d\d-\d\dT\d\d:00:00Z$/, source.origin);
      assert.match(source.licence, /^CC/);
    }
    assert.equal(iplocation.localData?.().length, 2);
  });
});
