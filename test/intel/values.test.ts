/**
 * What a person types is accepted and normalised (defanged forms, case, a root dot, a missing
 * scheme, surrounding spaces); only what cannot be a value of the type is refused, with a reason.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkValue, findType } from "../../src/intel/model/taxonomy.ts";
import { freshDatabase, startIntelServer } from "../helpers/intel-server.ts";

function normalised(type: string, raw: string, superType = "OBSERVABLE"): string {
  const t = findType(superType, type);
  assert.ok(t, type);
  const checked = checkValue(t, raw);
  assert.ok(
    "value" in checked,
    `${type} ${JSON.stringify(raw)}: ${"problem" in checked ? checked.problem : ""}`,
  );
  return checked.value;
}

function refused(type: string, raw: string): string {
  const t = findType("OBSERVABLE", type);
  assert.ok(t);
  const checked = checkValue(t, raw);
  assert.ok("problem" in checked, `${type} ${JSON.stringify(raw)} was accepted`);
  return checked.problem;
}

describe("values as people type them", () => {
  it("normalises what a person means", () => {
    const cases: Array<[string, string, string]> = [
      ["CVE", "cve-2021-44228", "CVE-2021-44228"],
      ["CVE", "  CVE-2021-44228\n", "CVE-2021-44228"],
      ["DOMAIN", "Example.org.", "example.org"],
      ["DOMAIN", "evil[.]example(.)com", "evil.example.com"],
      ["DOMAIN", "bücher.de", "xn--bcher-kva.de"],
      ["DOMAIN", "_dmarc.example.com", "_dmarc.example.com"],
      ["HOSTNAME", "Mail.Example.org.", "mail.example.org"],
      ["URL", "example.com/path?q=1", "http://example.com/path?q=1"],
      ["URL", "hxxps[:]//evil[.]example/a", "https://evil.example/a"],
      ["URL", "HTTP://Example.COM./A", "http://example.com/A"],
      ["URL", "example.com?q=1", "http://example.com/?q=1"],
      ["URL", "http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"],
      ["EMAIL", "someone[at]Example[.]org", "someone@example.org"],
      ["EMAIL", "a.b+c@Example.ORG", "a.b+c@example.org"],
      ["IPV4", "192.0.2[.]1", "192.0.2.1"],
      ["IPV4", "192.000.002.010", "192.0.2.10"],
      ["CIDR", "192.0.2(.)0/24", "192.0.2.0/24"],
      ["IPV6", "2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
      ["MD5", "D41D8CD98F00B204E9800998ECF8427E", "d41d8cd98f00b204e9800998ecf8427e"],
      ["ASN", "as15169", "AS15169"],
      ["ASN", "15169", "AS15169"],
      ["MAC", "00-1A-2B-3C-4D-5E", "00:1a:2b:3c:4d:5e"],
      ["PHONE", " +1  202-555-0143 ", "+1 202-555-0143"],
    ];
    for (const [type, raw, want] of cases) assert.equal(normalised(type, raw), want, `${type} ${raw}`);
    assert.equal(normalised("NGO", "  Amnesty Tech \u200b", "ACTOR"), "Amnesty Tech");
  });

  it("refuses what cannot be a value of the type, saying why", () => {
    assert.match(refused("IPV4", "300.1.1.1"), /not a valid IPv4/);
    assert.match(refused("DOMAIN", "not a domain"), /not a valid/);
    assert.match(refused("CVE", "CVE-21-1"), /for example CVE-2021-44228/);
    assert.match(refused("MD5", "abc"), /not a valid/);
    assert.match(refused("CIDR", "192.0.2.0/24/8"), /not a valid/);
    assert.match(refused("CIDR", "192.0.2.0"), /not a valid/);
    assert.match(refused("URL", "http://exa mple.com"), /not a valid/);
    assert.match(refused("EMAIL", "nobody"), /not a valid/);
    assert.match(refused("DOMAIN", "   "), /empty/);
    assert.match(refused("DOMAIN", "a\u0000.example.com"), /control character/);
    assert.match(refused("DOMAIN", `${"a".repeat(250)}.com`), /at most 253/);
  });

  it("refuses a line break or tab inside a value instead of joining its halves", () => {
    const cases: Array<[string, string]> = [
      ["DOMAIN", "exa\nmple.org"],
      ["DOMAIN", "exa\tmple.org"],
      ["HOSTNAME", "exa\r\nmple.org"],
      ["EMAIL", "a@exa\nmple.org"],
      ["URL", "http://exa\nmple.org/a"],
      ["SHA256", `${"a".repeat(32)}\n${"a".repeat(32)}`],
    ];
    for (const [type, raw] of cases)
      assert.match(
        refused(type, raw),
        /a line break, a tab or another control character/,
        JSON.stringify(raw),
      );
    // Around the value, they are what a paste leaves: trimmed, as spaces are.
    assert.equal(normalised("DOMAIN", "\texample.org\r\n"), "example.org");
  });

  it("stores one subject for every spelling of a value", async () => {
    const db = await freshDatabase("sqlite");
    const server = await startIntelServer({ databaseUrl: db.url, env: { INTEL_CONNECTORS: "" } });
    try {
      const ask = async (value: string) => {
        const res = await server.api("/api/request/", {
          method: "POST",
          body: JSON.stringify({ super_type: "observable", type: "domain", value }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const first = await ask("Example.org.");
      assert.ok([200, 201].includes(first.status), JSON.stringify(first.body));
      const deadline = Date.now() + 10_000;
      let done = first;
      while (done.status === 201 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        done = await ask("example[.]org");
      }
      assert.equal(done.status, 200);
      const root = done.body.root_entity as { name: string };
      assert.equal(root.name, "example.org");
      const refusal = await ask("exa mple.org");
      assert.equal(refusal.status, 400);
      assert.equal(refusal.body.code, "invalid_value");
      const joined = await ask("exa\nmple.org");
      assert.equal(joined.status, 400, "exa\\nmple.org was looked up as example.org");
      assert.match(String(joined.body.detail), /line break/);
    } finally {
      await server.close();
      await db.drop();
    }
  });
});
