/**
 * The verdict card's facts from the keyless sources, computed by the panel's own verdict.js (run
 * as the browser runs it): network and country, Tor exit, lists, spyware, and a domain registered
 * in the last week flagged as a signal, older registrations not.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import vm from "node:vm";
import { ROOT } from "../../../src/common/config.ts";

type Fact = { label: string; text: string; signal: boolean };
const window = {} as { loupeVerdict(doc: unknown, vendors: unknown, now?: number): { facts: Fact[] } };
vm.runInNewContext(readFileSync(path.join(ROOT, "src", "intel", "admin", "static", "verdict.js"), "utf8"), {
  window,
});
const NOW = Date.parse("2026-11-27T12:00:00Z");
const factsOf = (attributes: Record<string, string>) =>
  JSON.parse(
    JSON.stringify(
      window.loupeVerdict({ root_entity: { id: "root", attributes }, sources: {} }, {}, NOW).facts,
    ),
  ) as Fact[];

describe("verdict card facts", () => {
  it("shows an address's network, country, Tor exit and listings, the last two as signals", () => {
    assert.deepEqual(
      factsOf({
        asn: "AS64500",
        as_owner: "Example Networks",
        country: "NL",
        ip_range: "192.0.2.0 - 192.0.2.255",
        tor_exit: "true",
        blocklisted: "Feodo Tracker botnet C2 (abuse.ch)",
        botnet_c2: "QakBot",
      }),
      [
        { label: "Network", text: "AS64500 Example Networks", signal: false },
        { label: "Country", text: "NL", signal: false },
        { label: "Network range", text: "192.0.2.0 - 192.0.2.255", signal: false },
        { label: "Tor", text: "Tor exit node", signal: true },
        { label: "Blocklisted", text: "on Feodo Tracker botnet C2 (abuse.ch)", signal: true },
        { label: "Botnet C2", text: "QakBot", signal: true },
      ],
    );
  });

  it("flags a domain registered this week, not an older one; names spyware with its sources", () => {
    const fresh = factsOf({
      created: "2026-11-24T09:12:00Z",
      registrar: "Example Registrar",
      spyware: "ExampleSpy",
      spyware_sources: "Amnesty International",
    });
    assert.deepEqual(
      fresh.find((f) => f.label === "Registered"),
      {
        label: "Registered",
        text: "2026-11-24 (3 days ago): registered this week",
        signal: true,
      },
    );
    assert.deepEqual(
      fresh.find((f) => f.label === "Spyware"),
      {
        label: "Spyware",
        text: "ExampleSpy (Amnesty International)",
        signal: true,
      },
    );
    const old = factsOf({ created: "2019-05-01T00:00:00Z", cert_count: "2", cert_sibling_names: "5" });
    assert.deepEqual(old, [
      { label: "Registered", text: "2019-05-01 (2767 days ago)", signal: false },
      { label: "Certificates", text: "2 logged, 5 other names", signal: false },
    ]);
    assert.deepEqual(factsOf({}), []);
  });
});
