/**
 * The report page of a 1,000-node tree in Chromium (target ≤ 1 s): a real files service analyses
 * a zip of 10 zips of 99 notes (1,001 nodes), a flat zip of 1,000 notes, and, as the baseline, a
 * zip of 2 notes; the page the panel serves for each (layout, report-view.ts, static scripts, the
 * panel's CSP) is loaded in Chromium, in alternating rounds so that the machine's drift hits each
 * alike. Read from the page's own performance marks: navigation start to the first frame painted
 * after the report was drawn, and the report script's own time (start to drawn). Medians.
 */
import os from "node:os";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../test/helpers/browser.ts";
import { startTestClamd } from "../../test/helpers/clamd.ts";
import { startReportHarness } from "../../test/helpers/report-harness.ts";
import { analyse, largeTree } from "../../test/helpers/report-samples.ts";
import { storedZip } from "../../test/helpers/zip.ts";
import { fmt } from "../lib/measure.ts";
import { startChildServer } from "../lib/server.ts";

const ROUNDS = Number(process.env.BENCH_REPORT_ROUNDS ?? 5);
const TARGET_MS = 1000;

function notes(members: number): Buffer {
  const files: Record<string, string> = {};
  for (let i = 0; i < members; i++)
    files[`note-${i}.txt`] = `Note ${i}: beacon to https://c2-${i}.example-bad.net/gate\n`;
  return storedZip(files);
}

const mark = (name: string) => `performance.getEntriesByName(${JSON.stringify(name)})[0]?.startTime`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** One load of `url`: [navigation → painted, the report script's own time], in ms. */
async function load(browser: Browser, url: string): Promise<[number, number]> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(`${mark("loupe-report-painted")} !== undefined`);
  const [painted, start, drawn] = (await page.evaluate(
    `[${mark("loupe-report-painted")}, ${mark("loupe-report-start")}, ${mark("loupe-report-rendered")}]`,
  )) as number[];
  await page.close();
  return [painted ?? 0, (drawn ?? 0) - (start ?? 0)];
}

async function main(): Promise<void> {
  const clamd = await startTestClamd();
  const files = await startChildServer(["files", "serve"], {
    CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
  });
  const harness = await startReportHarness();
  const browser = await launchChromium();
  try {
    const uploads: Record<string, [Buffer, string]> = {
      "baseline (2 notes)": [notes(2), "small.zip"],
      "nested (10 zips × 99 notes)": [largeTree(), "nested.zip"],
      "flat (1,000 notes)": [notes(1000), "flat.zip"],
    };
    const urls: Record<string, string> = {};
    for (const [label, [bytes, name]] of Object.entries(uploads)) {
      const json = JSON.stringify(await analyse(files.url, bytes, name));
      const nodes = JSON.parse(json).processors.extractor.analysis.extra.tree.nodes.length;
      console.log(`${label}: ${nodes} nodes, ${fmt(json.length / 1e6, 2)} MB of JSON`);
      urls[label] = harness.add(label, json);
    }
    console.log(
      `report page in Chromium — ${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(0)}, ${ROUNDS} rounds`,
    );
    const times: Record<string, Array<[number, number]>> = {};
    for (const label of Object.keys(urls)) times[label] = [];
    for (let r = 0; r < ROUNDS; r++)
      for (const [label, url] of Object.entries(urls)) times[label]?.push(await load(browser, url));
    const base = median((times["baseline (2 notes)"] ?? []).map(([p]) => p));
    let worst = 0;
    for (const [label, runs] of Object.entries(times)) {
      const painted = median(runs.map(([p]) => p));
      if (!label.startsWith("baseline")) worst = Math.max(worst, painted);
      console.log(
        `${label.padEnd(28)} painted ${fmt(painted, 0).padStart(5)} ms (${fmt(painted / base, 2)} × the baseline), report script ${fmt(median(runs.map(([, s]) => s)), 0).padStart(4)} ms`,
      );
    }
    console.log(`\nworst 1,000-node median: ${fmt(worst, 0)} ms (target ≤ ${TARGET_MS} ms)`);
    if (worst > TARGET_MS) process.exitCode = 1;
  } finally {
    await browser.close();
    await harness.close();
    await files.stop();
    await clamd.stop();
  }
}

await main();
