/**
 * The report page of a 1,000-node tree in Chromium (target ≤ 1 s): a real files service analyses
 * a zip of 10 zips of 99 notes (1,001 nodes) and a flat zip of 1,000 notes; the page the panel
 * serves for each (layout, report-view.ts, static scripts, the panel's CSP) is loaded in
 * Chromium, and the time from navigation start to the first frame painted after the report was
 * drawn is read from the page's own performance marks. Best and median of ROUNDS loads.
 */
import os from "node:os";
import { launchChromium } from "../../test/helpers/browser.ts";
import { startTestClamd } from "../../test/helpers/clamd.ts";
import { startReportHarness } from "../../test/helpers/report-harness.ts";
import { analyse, largeTree } from "../../test/helpers/report-samples.ts";
import { storedZip } from "../../test/helpers/zip.ts";
import { fmt } from "../lib/measure.ts";
import { startChildServer } from "../lib/server.ts";

const ROUNDS = Number(process.env.BENCH_REPORT_ROUNDS ?? 5);
const TARGET_MS = 1000;

function flatTree(members = 1000): Buffer {
  const notes: Record<string, string> = {};
  for (let i = 0; i < members; i++)
    notes[`note-${i}.txt`] = `Note ${i}: beacon to https://c2-${i}.example-bad.net/gate\n`;
  return storedZip(notes);
}

const mark = (name: string) => `performance.getEntriesByName(${JSON.stringify(name)})[0]?.startTime`;

async function main(): Promise<void> {
  const clamd = await startTestClamd();
  const files = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
  });
  const harness = await startReportHarness();
  const browser = await launchChromium();
  try {
    const trees = {
      "nested (10 zips × 99 notes)": JSON.stringify(await analyse(files.url, largeTree(), "nested.zip")),
      "flat (1,000 notes)": JSON.stringify(await analyse(files.url, flatTree(), "flat.zip")),
    };
    console.log(
      `report page in Chromium — ${os.cpus().length} cores, ${ROUNDS} loads each, target ≤ ${TARGET_MS} ms`,
    );
    let worst = 0;
    for (const [label, json] of Object.entries(trees)) {
      const nodes = (JSON.parse(json).processors.extractor.analysis.extra.tree.nodes as unknown[]).length;
      const url = harness.add(label, json);
      const times: number[] = [];
      const drawn: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(url);
        await page.waitForFunction(`${mark("loupe-report-painted")} !== undefined`);
        times.push(Number(await page.evaluate(mark("loupe-report-painted"))));
        drawn.push(Number(await page.evaluate(mark("loupe-report-rendered"))));
        await page.close();
      }
      times.sort((a, b) => a - b);
      drawn.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)] ?? 0;
      worst = Math.max(worst, median);
      console.log(
        `${label.padEnd(28)} ${nodes} nodes, ${fmt(json.length / 1e6, 2)} MB JSON: painted best ${fmt(times[0] ?? 0, 0)} ms, median ${fmt(median, 0)} ms (drawn: median ${fmt(drawn[Math.floor(drawn.length / 2)] ?? 0, 0)} ms)`,
      );
    }
    console.log(`\nworst median: ${fmt(worst, 0)} ms (target ≤ ${TARGET_MS} ms)`);
    if (worst > TARGET_MS) process.exitCode = 1;
  } finally {
    await browser.close();
    await harness.close();
    await files.stop();
    await clamd.stop();
  }
}

await main();
