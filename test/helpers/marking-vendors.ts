/**
 * A real intel server with one fake vendor per disclosure class, both recording what they receive:
 * VirusTotal (a third party) and the user's own MISP, on the suite's database.
 * What the TLP/PAP suites share.
 */
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { fixture } from "./connectors.ts";
import type { SuiteDatabase } from "./databases.ts";
import { type SimpleFake, startFakeVendor } from "./fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY } from "./fake-virustotal.ts";
import type { TestIntelServer } from "./intel-server.ts";

export interface MarkingVendors {
  server: TestIntelServer;
  vt: FakeVendor;
  misp: SimpleFake;
  close(): Promise<void>;
}

export async function startMarkingVendors(
  db: SuiteDatabase,
  opts: {
    worker?: boolean;
    env?: Record<string, string>;
    /** What the fake VirusTotal knows (`domains/<name>` → its answer); read at each call. */
    virustotal?: Record<string, unknown>;
  } = {},
): Promise<MarkingVendors> {
  const vt = await startFakeVirusTotal(opts.virustotal ?? {});
  const misp = await startFakeVendor({
    "/attributes/restSearch": () => ({ body: fixture("misp", "empty") }),
  });
  const server = await db.startIntelServer({
    worker: opts.worker,
    env: {
      INTEL_CONNECTORS: "virustotal,misp",
      INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      INTEL_VENDOR_RETRIES: "0",
      ...opts.env,
    },
  });
  await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  await addCredentials(server.services.store.db, "misp", { api_key: "misp-key", url: misp.url });
  return {
    server,
    vt,
    misp,
    // The server is closed, and the database dropped, by the suite.
    close: async () => {
      await vt.close();
      await misp.close();
    },
  };
}
