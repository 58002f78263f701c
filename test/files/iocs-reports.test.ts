/**
 * Shapes of published threat reports the scan missed or misread (found by the real-report corpus of
 * `./loupe bench iocs --corpus`): AsciiDoc passthroughs, lists right after a block delimiter, URL
 * lists whose lines end in "/", typographic quotes, version fields and file names. Each line is
 * written the way the reports write it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { extractIocs } from "../../src/files/iocs/extract.ts";
import { extractionParts } from "../../src/files/iocs/parts.ts";
import type { IocOptions, TextPart } from "../../src/files/iocs/types.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { storedZip } from "../helpers/zip.ts";

const OPTIONS: IocOptions = {
  maxChars: 1_000_000,
  maxIndicators: 1000,
  maxTokenChars: 4096,
  maxLocations: 5,
};

const valuesOf = (parts: TextPart[]) =>
  extractIocs(parts, OPTIONS).indicators.map((i) => `${i.kind}:${i.value}`);
const values = (text: string) => valuesOf([{ part: "content", text }]);

describe("indicators as published reports write them", () => {
  it("reads both sides of host|address inside an AsciiDoc ++passthrough++", () => {
    assert.deepEqual(values("- `++site-improve[.]net|185.165.171[.]105++`"), [
      "domain:site-improve.net",
      "ipv4:185.165.171.105",
    ]);
    assert.deepEqual(values("|`+1B635CB0A4549106D8B4CD4EDAFF384B1E4177F6+` |Project1.exe"), [
      "sha1:1b635cb0a4549106d8b4cd4edaff384b1e4177f6",
    ]);
  });

  it("finds the first line of a listing block right after its ---- delimiter", () => {
    const text = "===== C&C domains\n\n----\nacciaio.com[.]br\nceycarb[.]com\n----\n";
    assert.deepEqual(values(text), ["domain:acciaio.com.br", "domain:ceycarb.com"]);
    const offset = extractIocs([{ part: "content", text }], OPTIONS).indicators[0]?.locations[0]?.offset;
    assert.equal(offset, text.indexOf("acciaio"));
  });

  it("reads every upper-case SHA-1 of a code block, the first one too", () => {
    const hashes = [
      "2183AE45ADEF97500A26DBBF69D910B82BFE721A",
      "255F54DE241A3D12DEBAD2DF47BAC5601895E458",
      "40E73BF21E31EE99B910809B3B4715AF017DB061",
    ];
    for (const fence of ["----", "```"]) {
      assert.deepEqual(
        values(`=== Turian\n\n${fence}\n${hashes.join("\n")}\n${fence}\n`),
        hashes.map((h) => `sha1:${h.toLowerCase()}`),
      );
    }
  });

  it("reads .onion addresses, bare, defanged, in a list and in a URL", () => {
    const v3 = "2x6w4a4rpkc4im62qrsomw5cz7sh6xfwue6o2taasnzpj24emp2ytryd.onion";
    const text = `.Other Servers\n----\n${v3}\n----\nand hxxp://g5wcesdfjzne7255[.]onion/gate`;
    assert.deepEqual(values(text), [
      `domain:${v3}`,
      "url:http://g5wcesdfjzne7255.onion/gate",
      "domain:g5wcesdfjzne7255.onion",
    ]);
  });

  it("reads each URL of a list whose lines end in / (no join across a new scheme)", () => {
    const text = "http://www.fotolog[.]com/joannevil/1210/\nhttp://www.kiwibox[.]com/AfricanRugby/info/\n";
    assert.deepEqual(values(text), [
      "url:http://www.fotolog.com/joannevil/1210/",
      "domain:www.fotolog.com",
      "url:http://www.kiwibox.com/AfricanRugby/info/",
      "domain:www.kiwibox.com",
    ]);
  });

  it("reports the host of a URL written without a scheme, one per line of a list ending in ?", () => {
    const text =
      "x-dmt[.]net/index.php?\ndmt-sys[.]net/index.php?\nassltextile.com/Su34M.jpg and/or docs/readme.md";
    assert.deepEqual(values(text), ["domain:x-dmt.net", "domain:dmt-sys.net", "domain:assltextile.com"]);
  });

  it("takes a defanged name for a host whatever its top-level domain or case", () => {
    assert.deepEqual(values("tinyurl[.]one|91.219.239[.]191 ns.suechiLton[.]com tinyurl.one System.Net"), [
      "domain:tinyurl.one",
      "ipv4:91.219.239.191",
      "domain:ns.suechilton.com",
    ]);
    // Only the name that holds the defang: a file name beside a defanged magnet link stays a file name.
    assert.deepEqual(values("`magnet[:]?xt=urn[:]btih[:]zbbeamadk3f5&dn=cygwin.zip`"), []);
  });

  it("drops a trailing ++ and typographic quotes from URLs", () => {
    assert.deepEqual(
      values(
        "* `++http://bj.whtjz[.]com/zz1.php++` and ‘https://cdn-sync.net/a’ or “https://cdn-sync.net/b”.",
      ),
      [
        "url:http://bj.whtjz.com/zz1.php",
        "domain:bj.whtjz.com",
        "url:https://cdn-sync.net/a",
        "domain:cdn-sync.net",
        "url:https://cdn-sync.net/b",
      ],
    );
  });

  it("does not take an EXIF GPS version for an address, in text or as a version field", () => {
    assert.deepEqual(values("GPSVersionID: 2.3.0.0, ExifVersion 0231"), []);
    // The path the extractor gives an image's GPS version (exifr, through extractionParts).
    assert.deepEqual(
      valuesOf(extractionParts({ content: null, extra: { gps: { gps_version_id: "2.3.0.0" } } })),
      [],
    );
    assert.deepEqual(valuesOf([{ part: "extra.exif.FileVersion", text: "5.1.2.3" }]), []);
    assert.deepEqual(values("beacon to 2.3.0.1"), ["ipv4:2.3.0.1"]);
  });

  it("takes no file name for a domain when the caller says the text holds names", () => {
    const names = "invoice.zip › eicar.com\nreadme.com";
    assert.deepEqual(valuesOf([{ part: "node.name", text: names, names: true }]), []);
    // A URL or an address in a name is still one; the same words in prose are domains.
    assert.deepEqual(valuesOf([{ part: "node.name", text: "http://evil.com/x.txt", names: true }]), [
      "url:http://evil.com/x.txt",
      "domain:evil.com",
    ]);
    assert.deepEqual(values("the dropper reached readme.com"), ["domain:readme.com"]);
  });

  it("tags archive entry and attachment names of an extraction as names", () => {
    const parts = extractionParts({
      content: "── eicar.com ──\nX5O!P%@AP and beacon to readme.com",
      extra: {
        archive: { entries: [{ name: "eicar.com" }, { name: "docs/readme.com" }] },
        mail: { attachments: [{ filename: "invoice.com" }], subject: "pay at billing-update.com" },
      },
    });
    assert.deepEqual(valuesOf(parts), ["domain:readme.com", "domain:billing-update.com"]);
  });
});

describe("archive member names through POST /analyzer/iocs", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  it("reports no member name as a domain, and the hosts written inside the members", async () => {
    const zip = storedZip({
      "eicar.com": "a test file, nothing else",
      "docs/readme.com": "the dropper reached cdn-sync[.]net",
    });
    const res = await postFile(`${server.url}/analyzer/iocs`, zip, "sample.zip");
    const body = await json(res);
    assert.equal(res.status, 200);
    const found = body.processors.iocs.analysis.indicators as Array<{ kind: string; value: string }>;
    assert.deepEqual(
      found.map((i) => `${i.kind}:${i.value}`),
      ["domain:cdn-sync.net"],
    );
  });
});
