/**
 * `./loupe up` as users run it, in a child process: files, the intel API and the intel worker
 * are separate processes under the supervisor — one SIGKILLed comes back while the others keep
 * answering, and one SIGINT stops them all.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";
import { isAlive } from "../../src/common/process.ts";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { freePort } from "../helpers/child-server.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";

/** The child of `parent` whose command line contains `args` (read from /proc). */
function childOf(parent: number, args: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (ppid === parent && cmdline.includes(args)) return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const answers = async (url: string) => {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
};

describe("./loupe up: one supervised process per service", () => {
  const md5 = "44d88612fea8a8f36de82e1278abb02f";
  let dir: string;
  let vt: FakeVendor;
  let up: ChildProcess;
  let output = "";
  let filesUrl: string;
  let intelUrl: string;
  let key: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-up-"));
    vt = await startFakeVirusTotal({ [`files/${md5}`]: vtFixture("file") });
    const [filesPort, intelPort] = [await freePort(), await freePort()];
    filesUrl = `http://127.0.0.1:${filesPort}`;
    intelUrl = `http://127.0.0.1:${intelPort}`;
    const databaseUrl = `sqlite:${path.join(dir, "intel.db")}`;
    up = spawn(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", path.join(ROOT, "src/cli/main.ts"), "up"],
      {
        env: {
          ...process.env,
          LOG_LEVEL: "warn",
          FILES_PORT: String(filesPort),
          INTEL_PORT: String(intelPort),
          DATA_DIR: dir,
          FILES_TMP_DIR: dir,
          DATABASE_URL: databaseUrl,
          CLAMD_HOST: "127.0.0.1", // nobody listens on port 1: no clamd is started
          CLAMD_PORT: "1",
          INTEL_CONNECTORS: "virustotal",
          INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
          INTEL_VENDOR_RETRIES: "0",
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    up.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until("the banner", () => output.includes("Loupe is up.") || up.exitCode !== null);
    assert.equal(up.exitCode, null, `./loupe up exited: ${output}`);
    const store = await openStore(databaseUrl);
    try {
      const user = await createUser(store.db, "tester", "a-long-password", true);
      key = (await createToken(store.db, user.id)).key;
      await addCredentials(store.db, "virustotal", { api_key: VT_KEY });
    } finally {
      await store.close();
    }
  });

  after(async () => {
    if (up.exitCode === null && up.signalCode === null) {
      up.kill("SIGINT");
      await new Promise((r) => up.once("exit", r));
    }
    await vt.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("prints both URLs and the admin panel's URL, learnt from the intel process", () => {
    assert.match(output, new RegExp(`files +${filesUrl}`));
    assert.match(output, new RegExp(`intel +${intelUrl}`));
    assert.match(output, /admin +http:\/\/\S+\/[0-9a-f]{32}\//);
  });

  it("a SIGKILLed files process is restarted with a new PID while intel answers throughout", async () => {
    const supervisor = up.pid!;
    const filesPid = childOf(supervisor, "files serve")!;
    const intelPid = childOf(supervisor, "intel serve")!;
    assert.ok(filesPid && intelPid, "files and intel are children of the supervisor");
    process.kill(filesPid, "SIGKILL");
    let intelProbes = 0;
    const newPid = await until("files to come back", async () => {
      assert.ok(await answers(`${intelUrl}/`), "intel stopped answering while files was down");
      intelProbes++;
      const pid = childOf(supervisor, "files serve");
      return pid && pid !== filesPid && (await answers(`${filesUrl}/`)) ? pid : undefined;
    });
    assert.notEqual(newPid, filesPid);
    assert.ok(intelProbes > 0);
    assert.equal(childOf(supervisor, "intel serve"), intelPid, "intel was not restarted");
    assert.match(
      output,
      new RegExp(`files \\(pid ${filesPid}\\) killed by SIGKILL; restarting`),
      "the death is logged",
    );
  });

  it("a lookup finishes though its worker was SIGKILLed mid-job", async () => {
    const workerPid = childOf(up.pid!, "intel worker")!;
    assert.ok(workerPid, "the worker is a child of the supervisor");
    vt.delayMs = 3000;
    const ask = () =>
      fetch(`${intelUrl}/api/request/`, {
        method: "POST",
        headers: { authorization: `Token ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: md5 }),
      });
    const first = await ask();
    await first.arrayBuffer();
    assert.equal(first.status, 201);
    await until("the worker to call the vendor", () => vt.calls.length >= 1 || undefined);
    process.kill(workerPid, "SIGKILL");
    vt.delayMs = 0;
    const done = await until("the lookup to finish", async () => {
      const res = await ask();
      await res.arrayBuffer();
      return res.status === 201 ? undefined : res.status;
    });
    assert.equal(done, 200);
    const newWorker = childOf(up.pid!, "intel worker");
    assert.ok(newWorker && newWorker !== workerPid, "a new worker process took over");
  });

  it("SIGINT stops every child and exits with code 0", async () => {
    const children = ["files serve", "intel serve", "intel worker"].map((a) => childOf(up.pid!, a));
    assert.ok(children.every(Boolean), `three children: ${children.join(", ")}`);
    const exited = new Promise<number | null>((r) => up.once("exit", (code) => r(code)));
    up.kill("SIGINT");
    assert.equal(await exited, 0);
    for (const pid of children) assert.ok(!isAlive(pid!), `child ${pid} outlived the supervisor`);
  });
});
