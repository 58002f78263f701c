/**
 * Colander's Threatr client against real Loupe intel servers (SQLite and PostgreSQL): the requests
 * its code sends, replayed as sent, and every answer checked against Threatr's shapes as Colander
 * reads them (test/compat/schemas/threatr.schema.json), Django template semantics included.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import {
  type DbKind,
  freshDatabase,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "../helpers/intel-server.ts";
import {
  assertThreatrShape,
  ColanderThreatrClient,
  humanizeDuration,
  renderStatusPage,
} from "./threatr-colander.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";

for (const kind of ["sqlite", "postgres"] as DbKind[]) {
  describe(`Colander's Threatr client against Loupe intel on ${kind}`, {
    skip: kind === "postgres" ? await postgresSkipReason() : false,
  }, () => {
    let vt: FakeVendor;
    let hashlookup: SimpleFake;
    let server: TestIntelServer;
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    let colander: ColanderThreatrClient;
    before(async () => {
      vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
      hashlookup = await startFakeVendor({});
      db = await freshDatabase(kind);
      server = await startIntelServer({
        databaseUrl: db.url,
        env: {
          INTEL_CONNECTORS: "virustotal,hashlookup,otx,shodan,misp",
          INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
          INTEL_VENDOR_URL_HASHLOOKUP: hashlookup.url,
          INTEL_VENDOR_RETRIES: "0",
        },
      });
      await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
      await addCredentials(server.services.store.db, "virustotal", { api_key: `${VT_KEY}-2` });
      colander = new ColanderThreatrClient(server.url, server.key);
    });
    after(async () => {
      await server.close();
      await vt.close();
      await hashlookup.close();
      await db.drop();
    });

    it("is correctly configured: HEAD /api/schema/ with its token answers 200", async () => {
      assert.equal(await colander.isCorrectlyConfigured(), true);
      assert.equal(
        await new ColanderThreatrClient(server.url, "0".repeat(40)).isCorrectlyConfigured(),
        false,
      );
    });

    it("status page: /api/status/now/ has Threatr's shape and renders (uptime through humanize_duration)", async () => {
      const status = await colander.getStatus();
      assertThreatrShape("status", status);
      const modules = Object.fromEntries(
        status.available_modules.map((m: { id: string; configured: number }) => [m.id, m.configured]),
      );
      // Every connector, configured or not; `configured` counts credential sets (a keyless one is ready: 1).
      assert.deepEqual(modules, { virustotal: 2, hashlookup: 1, otx: 0, shodan: 0, misp: 0 });
      assert.ok(status.workers.length >= 1);
      const page = renderStatusPage(status);
      assert.ok(
        page.some((line) => /^on VirusTotal virustotal 2 API keys configured$/.test(line)),
        page.join("\n"),
      );
      assert.ok(
        page.some((line) => /^off .* otx 0 API keys configured$/.test(line)),
        page.join("\n"),
      );
      assert.ok(
        page.some((line) => /^green \S+ (Idle|Working) \d{2}:\d{2}:\d{2} \d+ \d+$/.test(line)),
        page.join("\n"),
      );
    });

    it("workers count the lookups they finished", async () => {
      await colander.sendRequest({ super_type: "OBSERVABLE", type: "MD5", value: MD5, force: true });
      for (let i = 0; i < 200; i++) {
        const { wait } = await colander.sendRequest({
          super_type: "OBSERVABLE",
          type: "MD5",
          value: MD5,
          force: false,
        });
        if (!wait) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const status = await colander.getStatus();
      assertThreatrShape("status", status);
      const total = status.workers.reduce(
        (n: number, w: { available_results: number }) => n + w.available_results,
        0,
      );
      assert.ok(total >= 1);
    });

    it("/api/modules/ lists the same objects", async () => {
      const { status, body } = await colander.get("/api/modules/");
      assert.equal(status, 200);
      assertThreatrShape("modules", body);
      assert.deepEqual(body, (await colander.getStatus()).available_modules);
    });
  });
}

describe("humanize_duration replica", () => {
  it("formats like Colander's filter and fails where it fails", () => {
    assert.equal(humanizeDuration(5.7), "00:00:05");
    assert.equal(humanizeDuration(3725), "01:02:05");
    assert.equal(humanizeDuration(90061), "1 day, 1:01:01");
    assert.throws(() => humanizeDuration("12.5 s"));
    assert.throws(() => humanizeDuration(null));
  });
});
