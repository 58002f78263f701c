/**
 * Loupe's own analyzers answer byte for byte as before Mandolin's names were added beside them:
 * the answers were recorded once (mandolin-golden-loupe.json) and only values that change from
 * run to run (timings, cache state, the ClamAV version installed) are masked before comparing.
 * An intended change of these answers is recorded again with RECORD_GOLDEN=1.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { EICAR, startTestClamd } from "../helpers/clamd.ts";
import { simplePdf } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const GOLDEN_FILE = new URL("./mandolin-golden-loupe.json", import.meta.url);
const GOLDEN: Record<string, string> = JSON.parse(readFileSync(GOLDEN_FILE, "utf8"));
const RECORD = process.env.RECORD_GOLDEN === "1";

const mask = (body: string) =>
  body
    .replace(/"compile_ms":[0-9.]+/, '"compile_ms":0')
    .replace(/"scan_ms":[0-9.]+/, '"scan_ms":0')
    .replace(/"rules_cached":(true|false)/, '"rules_cached":false')
    .replace(/"engine":"ClamAV [^"]*"/, '"engine":"ClamAV"');

const RULES =
  'rule demo : t1 { meta: a = "b" strings: $a = "pegasus" condition: $a }\nrule never { condition: false }';

describe("Loupe's own analyzers are unchanged byte for byte", { skip: skipUnlessCommands("clamd") }, () => {
  let server: TestFilesServer;
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  before(async () => {
    clamd = await startTestClamd();
    server = await startFilesServer({ CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "" });
  });
  after(async () => {
    await server.close();
    await clamd.stop();
    if (RECORD) writeFileSync(GOLDEN_FILE, `${JSON.stringify(GOLDEN, null, 2)}\n`);
  });

  const cases: Array<[string, string, Uint8Array | string, string, Record<string, string>]> = [
    [
      "extractor-pdf",
      "extractor",
      simplePdf("Golden text", { title: "Golden", author: "Ana", created: "D:20250301120000Z" }),
      "golden.pdf",
      {},
    ],
    ["extractor-text", "extractor", "a b\nc\n", "golden.txt", {}],
    ["rulematch", "rulematch", "xx pegasus yy", "s.bin", { rules: RULES }],
    ["antivirus-eicar", "antivirus", EICAR, "eicar.com", {}],
    ["antivirus-clean", "antivirus", "clean", "clean.txt", {}],
  ];
  for (const [key, route, bytes, name, fields] of cases) {
    it(`/analyzer/${route}: ${key}`, async () => {
      const res = await postFile(`${server.url}/analyzer/${route}`, bytes, name, fields);
      assert.equal(res.status, 200);
      const answer = mask(await res.text());
      if (RECORD) GOLDEN[key] = answer;
      assert.equal(answer, GOLDEN[key]);
    });
  }
});
