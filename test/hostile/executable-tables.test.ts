/**
 * Tables a hostile executable inflates, against a real files process: an ELF of two million
 * symbols (48 MB, written directly), one of 2,000 symbol tables over the same symbols, and a
 * Mach-O of 200,000 load commands get their facts, with
 * the declared counts and the tables named as cut, never only `timeout` (the ELF held a facts
 * thread the whole EXECUTABLE_TIMEOUT_MS and took 1.3 GB before).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { elfWithSymbols, fatMachoOf, machoWithLoadCommands } from "../helpers/executables.ts";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const MAX = 20_000;

describe("inflated executable tables, against a real process", () => {
  let files: RealProcess;
  before(async () => {
    files = await startFilesProcess({
      EXTRACT_WORKERS: "1",
      EXECUTABLE_MAX_TABLE_ENTRIES: String(MAX),
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
    });
  });
  after(() => files?.close());

  async function executableFacts(bytes: Buffer, name: string) {
    const res = await postFile(`${files.url}/analyzer/extractor`, bytes, name);
    const body = await json(res);
    assert.equal(res.status, 200);
    return body.processors.extractor.analysis.extra.executable;
  }

  it("an ELF of two million symbols: its facts, the symbol count and the cut", async () => {
    const facts = await executableFacts(elfWithSymbols(2_000_000), "symbols.o");
    assert.equal(facts.error, undefined, JSON.stringify(facts));
    assert.equal(facts.format, "elf");
    assert.equal(facts.counts.symbols, 2_000_000);
    assert.ok(facts.truncated.includes("symbols"));
    assert.deepEqual(facts.details.tables_cut, { symbols: { declared: 2_000_000, read: MAX } });
    const symtab = facts.sections.find((s: { name: string }) => s.name === ".symtab");
    assert.equal(symtab.size, 24 * 2_000_000, "the section keeps its true size");
    assert.equal(facts.details.stripped, false);
    await assertSurvived(files);
  });

  it("an ELF of 2,000 symbol tables all pointing at the same 20,000 symbols: one bound for all", async () => {
    const facts = await executableFacts(elfWithSymbols(MAX, { copies: 2000 }), "copies.o");
    assert.equal(facts.error, undefined, JSON.stringify(facts));
    assert.equal(facts.counts.symbols, 2001 * MAX);
    assert.deepEqual(facts.details.tables_cut, { symbols: { declared: 2001 * MAX, read: MAX } });
    await assertSurvived(files);
  });

  it("a Mach-O of 200,000 load commands: its facts, the count and the cut", async () => {
    const facts = await executableFacts(machoWithLoadCommands(200_000), "commands.macho");
    assert.equal(facts.error, undefined, JSON.stringify(facts));
    assert.equal(facts.format, "macho");
    assert.equal(facts.counts.load_commands, 200_000);
    assert.ok(facts.truncated.includes("load_commands"));
    await assertSurvived(files);
  });

  it("a universal Mach-O of two slices of 30,000 load commands: each slice cut", async () => {
    const slice = machoWithLoadCommands(30_000);
    const facts = await executableFacts(fatMachoOf([slice, slice]), "universal.macho");
    assert.equal(facts.error, undefined, JSON.stringify(facts));
    assert.deepEqual(facts.details.tables_cut, { load_commands: { declared: 60_000, read: 2 * MAX } });
    await assertSurvived(files);
  });
});
