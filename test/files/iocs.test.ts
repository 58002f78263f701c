import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isSafe } from "redos-detector";
import { extractIocs } from "../../src/files/iocs/extract.ts";
import { ALL_PATTERNS } from "../../src/files/iocs/patterns.ts";
import { DEFANG_PATTERN, refang } from "../../src/files/iocs/refang.ts";
import type { IocOptions } from "../../src/files/iocs/types.ts";

const OPTIONS: IocOptions = {
  maxChars: 1_000_000,
  maxIndicators: 1000,
  maxTokenChars: 4096,
  maxLocations: 5,
};

const scan = (text: string, options: Partial<IocOptions> = {}) =>
  extractIocs([{ part: "content", text }], { ...OPTIONS, ...options });
const values = (text: string, options: Partial<IocOptions> = {}) =>
  scan(text, options).indicators.map((i) => `${i.kind}:${i.value}`);

describe("indicator patterns", () => {
  for (const [name, pattern] of Object.entries({ ...ALL_PATTERNS, DEFANG_PATTERN })) {
    it(`${name} cannot backtrack catastrophically (redos-detector)`, () => {
      const result = isSafe(pattern, { timeout: 30_000 });
      assert.equal(result.error, null, `${name}: the checker gave up (${result.error})`);
      assert.equal(result.safe, true, `${name} has score ${JSON.stringify(result.score)}`);
    });
  }
});

describe("refanging", () => {
  it("undoes hxxp, [.], (.), [dot], [at], [:] and keeps offsets into the original text", () => {
    const input =
      "see hxxps://evil[.]example(.)org[/]x and bob [at] corp[.]net or ip 8[.]8.8{.}8 on hxxp[:]//a[dot]io";
    const r = refang(input);
    assert.equal(r.text, "see https://evil.example.org/x and bob@corp.net or ip 8.8.8.8 on http://a.io");
    const at = r.text.indexOf("bob@");
    assert.equal(r.original(at), input.indexOf("bob [at]"));
    assert.equal(r.original(r.text.indexOf("corp.net")), input.indexOf("corp[.]net"));
    assert.equal(r.original(r.text.length - 4), input.length - 8);
    assert.equal(r.original(r.text.length - 2), input.length - 2);
    assert.equal(r.touchesDefang(at, at + 12), true);
    assert.equal(r.touchesDefang(0, 3), false);
  });

  it("leaves text without defanging untouched", () => {
    const r = refang("plain text, a [b] (c) and {d}");
    assert.equal(r.changed, false);
    assert.equal(r.text, "plain text, a [b] (c) and {d}");
  });

  it("reports defanged indicators as such, at their place in the original text", () => {
    const text = "Callback: hxxp://bad-domain[.]com/a.php then x";
    const [url, domain] = scan(text).indicators;
    assert.equal(url?.value, "http://bad-domain.com/a.php");
    assert.equal(url?.defanged, true);
    assert.deepEqual(url?.locations, [{ part: "content", page: null, offset: text.indexOf("hxxp") }]);
    assert.equal(domain?.value, "bad-domain.com");
    assert.equal(domain?.locations[0]?.offset, text.indexOf("bad-domain"));
    assert.equal(domain?.type, "DOMAIN");
    assert.equal(domain?.super_type, "OBSERVABLE");
  });
});

describe("validation", () => {
  it("takes domains under public suffixes only, not file names or code", () => {
    assert.deepEqual(values("evil.co.uk report.pdf setup.exe invoice.zip readme.md System.Net console.log"), [
      "domain:evil.co.uk",
    ]);
    assert.deepEqual(values("Login-secure.com or PAYPAL-VERIFY.NET, not Microsoft.Office.Interop"), [
      "domain:login-secure.com",
      "domain:paypal-verify.net",
    ]);
  });

  it("keeps file-name-like domains inside URLs and e-mail addresses", () => {
    assert.deepEqual(values("http://invoice.zip/x mail me@invoice.zip"), [
      "url:http://invoice.zip/x",
      "domain:invoice.zip",
      "email:me@invoice.zip",
    ]);
  });

  it("drops private, loopback, reserved and documentation addresses and domains unless asked", () => {
    const text = "10.1.2.3 192.168.0.1 127.0.0.1 203.0.113.9 0.0.0.0 fe80::1 2001:db8::1 example.com 8.8.4.4";
    assert.deepEqual(values(text), ["ipv4:8.8.4.4"]);
    assert.deepEqual(values(text, { includePrivate: true }), [
      "ipv4:10.1.2.3",
      "ipv4:192.168.0.1",
      "ipv4:127.0.0.1",
      "ipv4:203.0.113.9",
      "ipv4:0.0.0.0",
      "ipv6:fe80::1",
      "ipv6:2001:db8::1",
      "domain:example.com",
      "ipv4:8.8.4.4",
    ]);
  });

  it("reads networks, ports and public IPv6", () => {
    assert.deepEqual(
      values("45.77.0.0/16 45.77.1.2:8443 2a00:1450:4007:80e::200e 2606:4700::/32 999.1.1.1"),
      ["cidr:45.77.0.0/16", "ipv4:45.77.1.2", "ipv6:2a00:1450:4007:80e::200e", "cidr:2606:4700::/32"],
    );
  });

  it("does not take versions, dotted dates or times for addresses", () => {
    assert.deepEqual(values("version 1.2.3.4, v2.0.1.7, build 10.0.19041.1, on 12.03.2024 at 10:20:30"), []);
  });

  it("checks bitcoin checksums", () => {
    assert.deepEqual(values("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"), [
      "bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
    ]);
    assert.deepEqual(
      values("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp"),
      ["bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"],
    );
  });

  it("finds hashes, CVE ids, wallets, phones, paths and registry keys with their taxonomy types", () => {
    const text = [
      "md5:D41D8CD98F00B204E9800998ECF8427E sha1=da39a3ee5e6b4b0d3255bfef95601890afd80709",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 (cve-2021-44228).",
      "0x52908400098527886E0F7030069857D2E4169EE7 call +33 1 23 45 67 89 or +1 (555) 010-9999.",
      "Dropped C:\\Program Files (x86)\\Evil App\\run.exe and %APPDATA%\\evil\\a.dll;",
      "persists in HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion\\Run and /etc/cron.d/evil.",
      "and/or 00000000000000000000000000000000",
    ].join("\n");
    const found = scan(text).indicators.map((i) => [i.kind, i.type, i.value]);
    assert.deepEqual(found, [
      ["md5", "MD5", "d41d8cd98f00b204e9800998ecf8427e"],
      ["sha1", "SHA1", "da39a3ee5e6b4b0d3255bfef95601890afd80709"],
      ["sha256", "SHA256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      ["cve", "CVE", "CVE-2021-44228"],
      ["ethereum", "GENERIC", "0x52908400098527886E0F7030069857D2E4169EE7"],
      ["path", "PATH", "C:\\Program Files (x86)\\Evil App\\run.exe"],
      ["path", "PATH", "%APPDATA%\\evil\\a.dll"],
      ["registry_key", "GENERIC", "HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion\\Run"],
      ["path", "PATH", "/etc/cron.d/evil"],
      ["phone", "PHONE", "+33123456789"],
      ["phone", "PHONE", "+15550109999"],
    ]);
  });
});

describe("layout", () => {
  it("ends when a path or registry key is the last token (a rewound scan looped forever)", {
    timeout: 5000,
  }, () => {
    assert.deepEqual(values("writes %TEMP%\\jq\\run.js and sets HKCU\\Software\\Run"), [
      "path:%TEMP%\\jq\\run.js",
      "registry_key:HKCU\\Software\\Run",
    ]);
  });

  it("joins indicators wrapped at a line end after - / \\ and keeps offsets", () => {
    const text = "from hxxps://secure-login-\nverify[.]com/auth and HKLM\\\nSOFTWARE\\Run, intru-\nsion.";
    const found = scan(text).indicators;
    assert.deepEqual(
      found.map((i) => `${i.kind}:${i.value}`),
      [
        "url:https://secure-login-verify.com/auth",
        "domain:secure-login-verify.com",
        "registry_key:HKLM\\SOFTWARE\\Run",
      ],
    );
    assert.equal(found[1]?.locations[0]?.offset, text.indexOf("secure-login"));
  });
});

describe("de-duplication and limits", () => {
  it("lists each indicator once with its occurrences and first locations", () => {
    const result = extractIocs(
      [
        { part: "content", text: "evil.com and evil.com", page: "1" },
        { part: "title", text: "EVIL.COM" },
      ],
      { ...OPTIONS, maxLocations: 2 },
    );
    assert.equal(result.indicators.length, 1);
    assert.equal(result.indicators[0]?.occurrences, 3);
    assert.deepEqual(result.indicators[0]?.locations, [
      { part: "content", page: "1", offset: 0 },
      { part: "content", page: "1", offset: 13 },
    ]);
  });

  it("stops at IOC_MAX_INDICATORS and IOC_MAX_CHARS and says which", () => {
    const many = Array.from({ length: 50 }, (_, i) => `host${i}.com`).join(" ");
    const capped = scan(many, { maxIndicators: 10 });
    assert.equal(capped.indicators.length, 10);
    assert.equal(capped.truncated, "max_indicators");
    const cut = scan(`${"x ".repeat(100)}evil.com`, { maxChars: 100 });
    assert.deepEqual(cut.indicators, []);
    assert.equal(cut.truncated, "max_chars");
    assert.equal(cut.scanned_chars, 100);
  });

  it("skips tokens longer than IOC_MAX_TOKEN_CHARS", () => {
    assert.deepEqual(values(`http://evil.com/${"a".repeat(100)} good.com`, { maxTokenChars: 50 }), [
      "domain:good.com",
    ]);
  });
});
