/**
 * Hostile text for the indicator scan against a real `./loupe files serve` process: floods of
 * each pattern's near-misses, huge texts and endless candidates. Each answers 200 with a result
 * (cut and flagged when a limit is hit, or a `timeout` entry), and the same PID keeps serving.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const MB = 1_000_000;
const times = (s: string, bytes: number) => s.repeat(Math.ceil(bytes / s.length));

const CASES: Array<{ name: string; text: string; accept: string[] }> = [
  { name: "defang flood [.][.][.]…", text: times("[.]", 3 * MB), accept: ["ok"] },
  { name: "spaced defang flood a [at] b [.] …", text: times("a [at] b [.] ", 3 * MB), accept: ["ok"] },
  { name: "phone near-misses +1 +1 +1…", text: times("+1 ", 3 * MB), accept: ["ok"] },
  { name: "phone separators +1-------…", text: `+1${"-".repeat(3 * MB)}`, accept: ["ok"] },
  { name: "Windows path joined across spaces C:\\a b\\…", text: times("C:\\a b\\", 3 * MB), accept: ["ok"] },
  { name: "registry key without end HKLM\\x\\x\\…", text: `HKLM${times("\\x", 3 * MB)}`, accept: ["ok"] },
  { name: "wrapped lines a-⏎a-⏎…", text: times("a-\n", 3 * MB), accept: ["ok"] },
  { name: "one 3 MB token", text: "a".repeat(3 * MB), accept: ["ok"] },
  { name: "dotted quads 1.1.1.1.1.1…", text: times("1.", 3 * MB), accept: ["ok"] },
  { name: "IPv6 colons 1:1:1:…", text: times("1:", 3 * MB), accept: ["ok"] },
  { name: "hex run longer than any hash", text: times("0123456789abcdef", 3 * MB), accept: ["ok"] },
  { name: "hex words of hash length, all distinct", text: hexWords(200_000), accept: ["ok"] },
  { name: "at-signs a@b a@b …", text: times("a@b ", 3 * MB), accept: ["ok"] },
  { name: "URL schemes http://http://…", text: times("http://", 3 * MB), accept: ["ok"] },
  { name: "many URLs, all distinct", text: manyUrls(150_000), accept: ["ok"] },
  { name: "deep dotted names a.a.a.…", text: times("a.", 3 * MB), accept: ["ok"] },
];

function hexWords(n: number): string {
  return Array.from({ length: n }, (_, i) => (i.toString(16) + "f0".repeat(16)).slice(0, 32)).join(" ");
}

function manyUrls(n: number): string {
  return Array.from({ length: n }, (_, i) => `https://h${i}.lantern-c2.org/p?i=${i}`).join("\n");
}

async function iocs(server: RealProcess, text: string) {
  const res = await postFile(`${server.url}/analyzer/iocs`, text, "hostile.txt");
  const body = await json(res);
  assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
  return body.processors.iocs;
}

/** An ordinary scan finds its indicator after the attack. */
async function ordinary(server: RealProcess): Promise<Response> {
  const res = await postFile(`${server.url}/analyzer/iocs`, "beacon to cdn-sync[.]net", "probe.txt");
  const body = await json(res.clone());
  assert.deepEqual(
    body.processors.iocs.analysis.indicators.map((i: { value: string }) => i.value),
    ["cdn-sync.net"],
  );
  return res;
}

describe("hostile text for the indicator scan against a real files process", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({
      EXTRACT_WORKERS: "1",
      IOC_MAX_CHARS: String(4 * MB),
      IOC_MAX_INDICATORS: "2000",
      IOC_TIMEOUT_MS: "60000",
    });
  });
  after(() => server.close());

  for (const c of CASES) {
    it(c.name, async (t) => {
      const entry = await iocs(server, c.text);
      const got = entry.success ? "ok" : entry.error_short;
      t.diagnostic(
        `${got} ${entry.analysis ? `${entry.analysis.indicators.length} indicators` : entry.error}`,
      );
      assert.ok(c.accept.includes(got), `${c.name} answered ${got}: ${entry.error}`);
      await assertSurvived(server, () => ordinary(server));
    });
  }

  it("stops at IOC_MAX_INDICATORS and says so", async () => {
    const entry = await iocs(server, manyUrls(5000));
    assert.equal(entry.analysis.indicators.length, 2000);
    assert.equal(entry.analysis.truncated, "max_indicators");
  });

  it("stops at IOC_MAX_CHARS and says so", async () => {
    const entry = await iocs(server, `${times("lorem ipsum ", 5 * MB)} cdn-sync.net`);
    assert.equal(entry.analysis.truncated, "max_chars");
    assert.equal(entry.analysis.scanned_chars, 4 * MB);
    assert.deepEqual(entry.analysis.indicators, []);
  });

  it("a scan past IOC_TIMEOUT_MS ends in a timeout entry, and the next scan works", async () => {
    const quick = await startFilesProcess({ IOC_TIMEOUT_MS: "50", EXTRACT_WORKERS: "1" });
    try {
      const entry = await iocs(quick, times("[.]", 3 * MB));
      assert.equal(entry.success, false);
      assert.equal(entry.error_short, "timeout");
      await assertSurvived(quick);
    } finally {
      await quick.close();
    }
  });
});
