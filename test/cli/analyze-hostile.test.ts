/**
 * `./loupe analyze` against a hostile files service on loopback: the answer's hashes name a path
 * outside the thumbnails folder (`../../x`) and its names, paths and reasons carry terminal escapes
 * and bidirectional overrides. The thumbnail is named from the local file alone and stays inside
 * the folder; nothing from the service reaches the terminal unescaped.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { serveOnLoopback } from "../helpers/loopback.ts";
import { runLoupe } from "../helpers/run-loupe.ts";

const ESC = "\u001b[31m";
const RLO = "\u202e";
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** What a hostile service answers for any file: escapes everywhere, a sha256 that climbs out. */
function hostileAnswer() {
  const path = `evil${ESC}.zip › pay${RLO}gpj.exe`;
  return {
    success: true,
    content: `text ${ESC}`,
    error: null,
    error_short: null,
    verdict: {
      level: "malicious",
      reasons: [{ path, processor: `antivirus${ESC}`, detail: `Sig${RLO}nature` }],
    },
    processors: {
      extractor: {
        success: true,
        metadata: null,
        error: null,
        error_short: null,
        analysis: {
          type: "image/png",
          extra: {
            hashes: { sha256: "../../x", md5: `${ESC}` },
            tree: {
              nodes: [
                {
                  path: `evil${ESC}.zip`,
                  name: `evil${ESC}.zip`,
                  depth: 0,
                  size: 1,
                  type: `image/${RLO}png`,
                  status: "analysed",
                },
                {
                  path,
                  name: `pay${RLO}gpj.exe`,
                  depth: 1,
                  size: 2,
                  type: "x",
                  status: `limit${ESC}`,
                  reason: `r${RLO}`,
                },
              ],
            },
          },
        },
      },
      antivirus: {
        success: true,
        metadata: null,
        error: null,
        error_short: null,
        analysis: { infected: true, description: `Sig${ESC}in ${path}`, filename: "x", extra: null },
      },
    },
  };
}

describe("./loupe analyze against a hostile files service", () => {
  let service: { url: string; close(): Promise<void> };
  let root: string;
  let image: string;
  before(async () => {
    service = await serveOnLoopback(
      http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          if (req.url?.startsWith("/converter/thumbnail")) {
            res.writeHead(200, { "content-type": "image/png" }).end(PNG);
            return;
          }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(hostileAnswer()));
        });
      }),
    );
    root = await mkdtemp(path.join(os.tmpdir(), "loupe-analyze-hostile-"));
    await mkdir(path.join(root, "in"));
    image = path.join(root, "in", "photo.png");
    await writeFile(image, PNG);
  });
  after(async () => {
    await service.close();
    await rm(root, { recursive: true, force: true });
  });

  it("names the thumbnail from the local file and keeps it inside --thumbnails", async () => {
    const out = path.join(root, "thumbs", "deep");
    const run = await runLoupe(["analyze", "--json", "--url", service.url, "--thumbnails", out, image]);
    assert.equal(run.code, 1, run.stderr);
    const local = createHash("sha256").update(PNG).digest("hex");
    assert.deepEqual(await readdir(out), [`${local}.png`]);
    assert.equal(JSON.parse(run.stdout).thumbnail, path.join(out, `${local}.png`));
    assert.deepEqual((await readdir(root)).sort(), ["in", "thumbs"]);
    assert.equal(existsSync(path.join(out, "../../x.png")), false);
  });

  it("escapes terminal controls and bidirectional overrides from the service before printing", async () => {
    const run = await runLoupe(["analyze", "--url", service.url, image]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout.includes(ESC[0] as string), false, "no raw escape character");
    assert.equal(run.stdout.includes(RLO), false, "no raw right-to-left override");
    assert.match(
      run.stdout,
      /evil\\x1b\[31m\.zip › pay\\u\{202e\}gpj\.exe: antivirus\\x1b\[31m: Sig\\u\{202e\}nature/,
    );
    assert.match(run.stdout, /^ {4}pay\\u\{202e\}gpj\.exe \(x, 2 bytes, limit\\x1b\[31m: r\\u\{202e\}\)/m);
  });
});
