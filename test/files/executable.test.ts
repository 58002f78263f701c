import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  gccElf,
  gccSharedLibrary,
  LIBRARY_FUNCTIONS,
  MINGW,
  mingwPe,
  signedPe,
} from "../helpers/executables.ts";
import { extractOk, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

type Section = { name: string; offset: number; size: number; entropy: number | null };

/** Section headers as binutils' readelf lists them: the oracle of names, offsets and sizes. */
function readelfSections(file: string): Map<string, { offset: number; size: number }> {
  const out = execFileSync("readelf", ["-S", "-W", file], { encoding: "utf8" });
  const sections = new Map<string, { offset: number; size: number }>();
  for (const m of out.matchAll(/\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)/g))
    sections.set(m[1] as string, {
      offset: Number.parseInt(m[2] as string, 16),
      size: Number.parseInt(m[3] as string, 16),
    });
  return sections;
}

/** Shannon entropy in bits per byte, computed here independently of YARA-X's `math.entropy`. */
function entropy(bytes: Buffer): number {
  const counts = new Array(256).fill(0);
  for (const b of bytes) counts[b]++;
  return -counts
    .filter((c) => c > 0)
    .reduce((sum, c) => sum + (c / bytes.length) * Math.log2(c / bytes.length), 0);
}

describe("executable facts: ELF built by gcc", {
  skip: skipUnlessCommands("gcc", "strip", "readelf"),
}, () => {
  let server: TestFilesServer;
  let dir: string;
  // Built before the server is used: a long pause between requests would race keep-alive.
  const built = { elf: "", stripped: "", library: "" };
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "loupe-exe-"));
    Object.assign(built, {
      elf: gccElf(dir),
      stripped: gccElf(dir, { strip: true }),
      library: gccSharedLibrary(dir),
    });
    server = await startFilesServer();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports machine, type, entry point, sections with entropy, imports and sha512", async () => {
    const file = built.elf;
    const bytes = readFileSync(file);
    const { analysis } = await extractOk(server, bytes, "hello");
    const exe = analysis.extra.executable;
    assert.equal(exe.format, "elf");
    assert.equal(exe.architecture, os.arch() === "x64" ? "x86-64" : exe.architecture);
    const header = execFileSync("readelf", ["-h", file], { encoding: "utf8" });
    assert.equal(
      exe.entry_point,
      Number.parseInt(/Entry point address:\s+0x([0-9a-f]+)/.exec(header)?.[1] ?? "", 16),
    );
    assert.equal(exe.details.type, /Type:\s+DYN/.test(header) ? "shared" : "executable");
    assert.equal(exe.details.stripped, false);
    const expected = readelfSections(file);
    const text = exe.sections.find((s: Section) => s.name === ".text");
    assert.deepEqual({ offset: text.offset, size: text.size }, expected.get(".text"));
    const textBytes = bytes.subarray(text.offset, text.offset + text.size);
    assert.ok(Math.abs(text.entropy - entropy(textBytes)) < 0.001, `${text.entropy}`);
    assert.equal(exe.sections.find((s: Section) => s.name === ".bss").entropy, null);
    const headers = execFileSync("readelf", ["-h", file], { encoding: "utf8" });
    assert.equal(exe.counts.sections, Number(/Number of section headers:\s+(\d+)/.exec(headers)?.[1]));
    assert.ok(exe.imports[0].functions.includes("printf"), JSON.stringify(exe.imports));
    assert.ok(exe.imports[0].functions.includes("puts"));
    assert.equal(exe.overlay, null);
    assert.deepEqual(exe.truncated, []);
    assert.equal(
      analysis.extra.hashes.sha512,
      execFileSync("sha512sum", [file], { encoding: "utf8" }).split(" ")[0],
    );
  });

  it("sees a stripped ELF as stripped, and bytes appended to it as an overlay", async () => {
    const file = built.stripped;
    const bytes = Buffer.concat([readFileSync(file), Buffer.from("appended payload ".repeat(64))]);
    const { analysis } = await extractOk(server, bytes, "stripped");
    const exe = analysis.extra.executable;
    assert.equal(exe.details.stripped, true);
    assert.equal(exe.counts.symbols, 0);
    assert.deepEqual(exe.overlay, { offset: readFileSync(file).length, size: 17 * 64 });
  });

  it("lists a shared library's exports and gives its telfhash (checked against TLSH of its symbols)", async () => {
    const file = built.library;
    const { analysis } = await extractOk(server, readFileSync(file), "libloupe.so");
    const exe = analysis.extra.executable;
    for (const name of LIBRARY_FUNCTIONS) assert.ok(exe.exports.includes(name), name);
    // telfhash (Trend Micro's published algorithm): TLSH of the sorted, lower-cased, comma-joined
    // global function symbols, minus the libc-like ones; here exactly LIBRARY_FUNCTIONS. Debian's
    // tlsh hashes that list as the oracle (telfhash writes TLSH version 1 as "T1").
    const names = path.join(dir, "telfhash-input.txt");
    writeFileSync(names, [...LIBRARY_FUNCTIONS].sort().join(","));
    const expected = execFileSync("tlsh", ["-f", names], { encoding: "utf8" }).split("\t")[0]?.trim();
    assert.equal(analysis.extra.hashes.telfhash, `T1${expected}`);
    assert.equal(exe.details.telfhash, analysis.extra.hashes.telfhash);
  });

  it("leaves files of other formats without executable facts", async () => {
    const { analysis } = await extractOk(server, "plain text, not a program", "notes.txt");
    assert.equal(analysis.extra.executable, undefined);
    assert.equal(analysis.extra.hashes.imphash, undefined);
  });
});

/** Debian's pefile (python3-pefile) is the oracle of imphash; it lives in Debian's own Python. */
function pefileImphash(file: string): string {
  return execFileSync(
    "/usr/bin/python3",
    ["-c", "import pefile,sys; print(pefile.PE(sys.argv[1]).get_imphash())", file],
    {
      encoding: "utf8",
    },
  ).trim();
}

describe("executable facts: PE built by MinGW-w64", {
  skip: skipUnlessCommands(MINGW, "x86_64-w64-mingw32-dlltool"),
}, () => {
  let server: TestFilesServer;
  let dir: string;
  const built = { pe: "", signed: "", serial: "" };
  const canSign = skipUnlessCommands("osslsigncode", "openssl") === false;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "loupe-pe-"));
    built.pe = mingwPe(dir);
    if (canSign) Object.assign(built, signedPe(dir, built.pe));
    server = await startFilesServer();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports machine, compile time, sections, imports by name and by ordinal, exports", async () => {
    const file = built.pe;
    const bytes = readFileSync(file);
    const { analysis } = await extractOk(server, bytes, "loupe.exe");
    const exe = analysis.extra.executable;
    assert.equal(exe.format, "pe");
    // The COFF header's TimeDateStamp, read here from the bytes (PE offset at 0x3c, stamp 8 further).
    const stamp = bytes.readUInt32LE(bytes.readUInt32LE(0x3c) + 8);
    assert.equal(exe.compile_time, stamp === 0 ? null : new Date(stamp * 1000).toISOString());
    assert.equal(exe.architecture, "x86-64");
    assert.equal(exe.machine, 0x8664);
    assert.equal(exe.details.is_64bit, true);
    assert.equal(exe.details.subsystem, "windows_cui");
    assert.ok(exe.sections.some((s: Section) => s.name === ".text" && s.entropy !== null && s.entropy > 0));
    const libs = Object.fromEntries(
      exe.imports.map((l: { library: string; functions: string[] }) => [
        l.library.toLowerCase(),
        l.functions,
      ]),
    );
    assert.ok(libs["kernel32.dll"].includes("GetModuleFileNameA"));
    assert.deepEqual(libs["user32.dll"], ["MessageBoxA"]);
    // ws2_32 ordinals are named from YARA-X's table (as pefile names them); others stay ord<N>.
    assert.deepEqual([...libs["ws2_32.dll"]].sort(), ["WSACleanup", "WSAStartup"]);
    assert.deepEqual(libs["loupehelper.dll"], ["ord7"]);
    assert.deepEqual(exe.exports, ["loupe_exported"]);
    assert.equal(exe.signatures.present, false);
    assert.equal(exe.signatures.valid, false);
    assert.match(analysis.extra.hashes.imphash, /^[0-9a-f]{32}$/);
  });

  it("gives the imphash pefile gives (ws2_32 ordinals mapped to names)", {
    skip: skipUnlessCommands("/usr/bin/python3"),
  }, async () => {
    const file = built.pe;
    const { analysis } = await extractOk(server, readFileSync(file), "loupe.exe");
    assert.equal(analysis.extra.hashes.imphash, pefileImphash(file));
  });

  it("reads an Authenticode signature (osslsigncode) and sees it fail once the file is altered", {
    skip: canSign ? false : "needs osslsigncode and openssl",
  }, async () => {
    const bytes = readFileSync(built.signed);
    const signed = (await extractOk(server, bytes, "signed.exe")).analysis.extra.executable;
    assert.equal(signed.signatures.present, true);
    assert.equal(signed.signatures.valid, true);
    assert.equal(signed.signatures.certificates[0].subject, "/CN=Loupe Test Signer");
    assert.equal(
      signed.signatures.certificates[0].serial.replaceAll(":", "").toLowerCase(),
      built.serial.toLowerCase(),
    );
    // One byte of code changed after signing: the digest no longer matches.
    const text = signed.sections.find((s: Section) => s.name === ".text");
    const altered = Buffer.from(bytes);
    altered[text.offset + 16] = (altered[text.offset + 16] ?? 0) ^ 0xff;
    const tampered = (await extractOk(server, altered, "altered.exe")).analysis.extra.executable;
    assert.equal(tampered.signatures.present, true);
    assert.equal(tampered.signatures.valid, false);
  });
});
