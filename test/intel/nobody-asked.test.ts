/**
 * Why nobody was asked, as a pure function of the reach: no connector for the type, none with
 * credentials, all gated by TLP/PAP; and null as soon as some vendor's word is among the sources.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connectorById } from "../../src/intel/connectors/registry.ts";
import type { Connector } from "../../src/intel/connectors/types.ts";
import { gate, type Marks } from "../../src/intel/domain/markings.ts";
import { nobodyAsked, reachOf, whyNobody } from "../../src/intel/domain/nobody-asked.ts";

const vt = connectorById("virustotal") as Connector;
const misp = connectorById("misp") as Connector;
const md5 = { superType: "OBSERVABLE", type: "MD5", value: "44d88612fea8a8f36de82e1278abb02f" };
const phone = { superType: "OBSERVABLE", type: "PHONE", value: "+33 6 00 00 00 00" };
const CLEAR: Marks = { tlp: "CLEAR", pap: "CLEAR" };
const RED: Marks = { tlp: "RED", pap: "CLEAR" };
const config = { tlpAllow: {}, papAllow: {} };

function why(connectors: Connector[], subject: typeof md5, configured: string[], marks = CLEAR) {
  const reach = reachOf(connectors, subject, new Set(configured));
  return whyNobody({ ...reach, ...gate(reach.usable, marks, undefined, config) });
}

describe("nobody_asked", () => {
  it("names the reason an ask reaches nobody (whyNobody)", () => {
    assert.equal(why([vt], phone, ["virustotal"])?.reason, "type_not_supported");
    assert.equal(why([vt, misp], md5, [])?.reason, "no_vendor_configured");
    assert.equal(why([vt], md5, ["virustotal"], RED)?.reason, "markings");
    assert.match(why([vt], md5, ["virustotal"], RED)?.detail ?? "", /TLP:RED.*virustotal/);
    assert.equal(why([vt, misp], md5, ["virustotal", "misp"], RED), null, "the own MISP may be asked");
  });

  it("is null once a vendor spoke, even one skipped now", () => {
    const reach = { ...reachOf([vt], md5, new Set(["virustotal"])), ...gate([vt], RED, undefined, config) };
    const heard = {
      virustotal: { status: "not_found" as const, error: null, fetched_at: "2026-11-27T00:00:00Z" },
    };
    assert.equal(nobodyAsked(heard, reach), null);
    const skipped = {
      virustotal: { status: "skipped" as const, reason: "tlp" as const, error: null, fetched_at: null },
    };
    assert.equal(nobodyAsked(skipped, reach)?.reason, "markings");
  });
});
