/**
 * The real-report corpus of `./loupe bench iocs --corpus`, end to end on a small snapshot written at
 * test time (a git repository shaped like ESET's: AsciiDoc prose, a hash list, a MISP event): the
 * builder reads it at HEAD, refuses to write inside the repository, and the bench counts only listed
 * indicators the prose names and prints each miss by its shape. Both run as real processes.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";

const SHA1 = "3395856CE81F2B7382DEE72602F798B642F14140";
const UNNAMED_SHA1 = "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d";
/** A Bitcoin Cash address (CashAddr, BCH specification example): not a kind the scanner has. */
const CASHADDR = "qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a";

const README = `= Alpha indicators

== Files

----
${SHA1}
----

== Network

- \`++c2-alpha[.]net|45.77.1[.]2++\`
- wallet: \`${CASHADDR}\`
`;

const MISP = {
  response: [
    {
      Event: {
        Attribute: [
          { type: "domain|ip", value: "c2-alpha.net|45.77.1.2" },
          { type: "url", value: "c2-alpha.net:8080" },
          { type: "btc", value: CASHADDR },
          { type: "comment", value: "not an indicator" },
        ],
      },
    },
  ],
};

const node = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });

describe("the real-report corpus of the indicator bench", () => {
  let dir = "";
  let snapshot = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "loupe-ioc-corpus-"));
    const repo = path.join(dir, "repo");
    mkdirSync(path.join(repo, "alpha"), { recursive: true });
    writeFileSync(path.join(repo, "LICENSE"), "BSD two-clause, for the test\n");
    writeFileSync(path.join(repo, "alpha/README.adoc"), README);
    writeFileSync(path.join(repo, "alpha/samples.sha1"), `${SHA1}\n${UNNAMED_SHA1}\n`);
    writeFileSync(path.join(repo, "alpha/misp-alpha.json"), JSON.stringify(MISP));
    const git = (...args: string[]) =>
      assert.equal(spawnSync("git", ["-C", repo, ...args]).status, 0, `git ${args.join(" ")}`);
    git("init", "-q");
    git("add", ".");
    git("-c", "user.email=test@loupe.invalid", "-c", "user.name=test", "commit", "-q", "-m", "snapshot");
    snapshot = path.join(repo, ".git");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the corpus from a git directory at HEAD, with the licence and the listed indicators", () => {
    const out = path.join(dir, "corpus");
    const r = node(["bench/iocs/corpus.ts", "eset", snapshot, out]);
    assert.equal(r.status, 0, r.stderr);
    const manifest = JSON.parse(readFileSync(path.join(out, "eset/manifest.json"), "utf8"));
    assert.match(manifest.commit, /^[0-9a-f]{40}$/);
    assert.equal(readFileSync(path.join(out, "eset/LICENSE"), "utf8"), "BSD two-clause, for the test\n");
    assert.deepEqual(manifest.reports[0].listed.sort(), [
      ["bitcoin", CASHADDR],
      ["domain", "c2-alpha.net"],
      ["ip", "45.77.1.2"],
      ["sha1", SHA1.toLowerCase()],
      ["sha1", UNNAMED_SHA1],
    ]);
    assert.equal(readFileSync(path.join(out, "eset/reports/alpha.adoc"), "utf8"), README);
  });

  it("refuses to write the corpus inside the repository", () => {
    const r = node(["bench/iocs/corpus.ts", "eset", snapshot, path.join(ROOT, "corpus-here")]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /inside the repository/);
  });

  it("scores recall on the indicators the prose names and prints each miss by shape", () => {
    const r = node(["bench/iocs/index.ts", `--corpus=${path.join(dir, "corpus")}`], {
      BENCH_IOCS_MB: "0.01",
    });
    assert.match(r.stdout, /1 reports, 5 listed indicators, 4 named in the prose, 3 found: recall 75\.00 %/);
    assert.match(r.stdout, /missed {4}1 {2}bitcoin\n.*alpha: qpm2qsznhks/);
    assert.match(r.stdout, /all sources: 3 of 4 listed indicators named in the prose: recall 75\.00 %/);
    assert.match(r.stdout, /below target/);
    assert.equal(r.status, 1);
  });
});
