/**
 * Antivirus through Loupe (HTTP upload, then INSTREAM to clamd) versus `clamdscan --stream`
 * against the same clamd, on the same files.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startTestClamd } from "../../test/helpers/clamd.ts";
import { fmt } from "../lib/measure.ts";
import { multipartBody, postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";

const SIZES_MB = [0.1, 1, 10, 50];
const ROUNDS = 5;

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-bench-av-"));
  const clamd = await startTestClamd(60_000_000);
  const socket = "socket" in clamd.address ? clamd.address.socket : "";
  const server = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: socket,
    MAX_FILE_SIZE: "60000000",
  });
  const conf = path.join(clamd.dir, "clamd.conf");
  try {
    console.log(
      `antivirus benchmark — ${os.cpus().length} cores, best of ${ROUNDS} per size, same clamd for both sides`,
    );
    const rows: Array<Record<string, string>> = [];
    for (const mb of SIZES_MB) {
      const bytes = Buffer.alloc(Math.round(mb * 1024 * 1024));
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
      const file = path.join(dir, `clean-${mb}.bin`);
      await writeFile(file, bytes);
      const upload = multipartBody(bytes, `clean-${mb}.bin`);
      let cli = Number.POSITIVE_INFINITY;
      let http = Number.POSITIVE_INFINITY;
      for (let r = 0; r < ROUNDS; r++) {
        let t = performance.now();
        execFileSync("clamdscan", ["-c", conf, "--stream", "--no-summary", file]);
        cli = Math.min(cli, performance.now() - t);
        t = performance.now();
        await postPrepared(`${server.url}/analyzer/antivirus`, upload);
        http = Math.min(http, performance.now() - t);
      }
      rows.push({
        size: `${mb} MB`,
        "clamdscan --stream (ms)": fmt(cli),
        "Loupe HTTP (ms)": fmt(http),
        ratio: `${fmt(http / cli, 2)}×`,
      });
    }
    console.table(rows);
    console.log("target: Loupe ≤ 1.2× clamdscan --stream");
  } finally {
    await server.stop();
    await clamd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
