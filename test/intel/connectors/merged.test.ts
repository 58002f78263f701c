/** All connectors at once against their fakes: one merged result document, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../../src/intel/store/credentials.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import {
  type DbKind,
  freshDatabase,
  pollUntilDone,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "../../helpers/intel-server.ts";
import { json } from "../../helpers/json.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const VT_SHA1 = "3395856ce81f2b7382dee72602f798b642f14140";

for (const kind of ["sqlite", "postgres"] as DbKind[]) {
  describe(`merged result from every connector on ${kind}`, {
    skip: kind === "postgres" ? await postgresSkipReason() : false,
  }, () => {
    let vt: FakeVendor;
    let circl: SimpleFake;
    let abusech: SimpleFake;
    let server: TestIntelServer;
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    before(async () => {
      vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
      const found = JSON.parse(
        readFileSync(path.join(import.meta.dirname, "../../fixtures/hashlookup/found.json"), "utf8"),
      );
      // The same file as VirusTotal knows, so both vendors speak of the same SHA-1.
      circl = await startFakeVendor({
        [`/lookup/md5/${MD5}`]: {
          body: { ...found, MD5: MD5.toUpperCase(), "SHA-1": VT_SHA1.toUpperCase(), parents: [] },
        },
      });
      const bazaar = JSON.parse(
        readFileSync(path.join(import.meta.dirname, "../../fixtures/malwarebazaar/found.json"), "utf8"),
      );
      const noIoc = JSON.parse(
        readFileSync(path.join(import.meta.dirname, "../../fixtures/threatfox/not_found.json"), "utf8"),
      );
      abusech = await startFakeVendor({
        "/api/v1/": (body) => ({ body: body.includes("search_ioc") ? noIoc : bazaar }),
      });
      db = await freshDatabase(kind);
      server = await startIntelServer({
        databaseUrl: db.url,
        env: {
          INTEL_CONNECTORS: "all",
          INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
          INTEL_VENDOR_URL_HASHLOOKUP: circl.url,
          INTEL_VENDOR_URL_MALWAREBAZAAR: abusech.url,
          INTEL_VENDOR_URL_THREATFOX: abusech.url,
          INTEL_VENDOR_URL_URLHAUS: abusech.url,
        },
      });
      await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
      await addCredentials(server.services.store.db, "malwarebazaar", { api_key: "abuse-key" });
      await addCredentials(server.services.store.db, "threatfox", { api_key: "abuse-key" });
    });
    after(async () => {
      await server.close();
      await vt.close();
      await circl.close();
      await abusech.close();
      await db.drop();
    });

    it("merges what every vendor said into one graph, one entity per subject", async () => {
      const subject = { super_type: "OBSERVABLE", type: "MD5", value: MD5 };
      const first = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify({ ...subject, force: true }),
      });
      assert.equal(first.status, 201);
      const res = await pollUntilDone(server, subject);
      assert.equal(res.status, 200);
      const doc = await json(res);
      assert.deepEqual(Object.keys(doc.sources).sort(), [
        "hashlookup",
        "malwarebazaar",
        "threatfox",
        "virustotal",
      ]);
      assert.equal(doc.sources.hashlookup.status, "ok", JSON.stringify(doc.sources));
      assert.equal(doc.sources.malwarebazaar.status, "ok", JSON.stringify(doc.sources));
      assert.equal(doc.sources.threatfox.status, "not_found");
      assert.equal(doc.root_entity.attributes.source_vendor, "hashlookup,malwarebazaar,virustotal");
      assert.equal(doc.root_entity.attributes.signature, "AgentTesla");
      assert.equal(doc.root_entity.attributes.vt_score, "61/76");
      assert.equal(doc.root_entity.attributes.known_file, "true");
      const sha1s = doc.entities.filter(
        (e: { type: { short_name: string } }) => e.type.short_name === "SHA1",
      );
      assert.equal(sha1s.length, 1, "the SHA-1 three vendors returned is one entity");
      assert.equal(sha1s[0].attributes.source_vendor, "hashlookup,malwarebazaar,virustotal");
      const modules = await json(await server.api("/api/modules/"));
      assert.deepEqual(
        modules.map((m: { id: string; configured: boolean }) => `${m.id}:${m.configured}`).sort(),
        [
          "abuseipdb:false",
          "greynoise:false",
          "hashlookup:true",
          "malwarebazaar:true",
          "misp:false",
          "otx:false",
          "shodan:false",
          "threatfox:true",
          "urlhaus:false",
          "urlscan:false",
          "virustotal:true",
        ],
      );
      const supported = await json(await server.api("/api/types/supported/"));
      assert.ok(supported.types.OBSERVABLE.some((t: { id: string }) => t.id === "SHA256"));
    });
  });
}
