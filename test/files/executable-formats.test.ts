import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { dexFile } from "../helpers/dex.ts";
import {
  clangMacho,
  LD64,
  LIPO,
  MINGW,
  mingwPackedLookingPe,
  universalMacho,
} from "../helpers/executables.ts";
import { extractOk, postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { type ShortcutOptions, shortcut } from "../helpers/lnk.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const SHORTCUT: ShortcutOptions = {
  target: "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
  arguments: "-w hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAKQA=",
  workingDir: "C:\\Users\\Public",
  description: "Invoice March",
  relativePath: "..\\..\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
  iconLocation: "%SystemRoot%\\System32\\shell32.dll",
  machineId: "desktop-k7q2",
  volumeLabel: "OS",
  driveSerial: 0x1234abcd,
  created: 1_767_225_600,
  accessed: 1_767_312_000,
  modified: 1_767_398_400,
  targetSize: 452_608,
  showCommand: 7,
};

const CLASSES = ["Lcom/example/loupe/Main;", "Lcom/example/loupe/net/Beacon;", "Lorg/sample/util/Codec;"];

describe("executable facts: LNK and DEX written from their published layouts", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  it("reads a shortcut's target, arguments, working directory, machine id and times", async () => {
    const bytes = shortcut(SHORTCUT);
    const { analysis } = await extractOk(server, bytes, "Invoice.pdf.lnk");
    const exe = analysis.extra.executable;
    assert.equal(exe.format, "lnk");
    assert.deepEqual(
      {
        target: exe.details.target_path,
        arguments: exe.details.arguments,
        working_dir: exe.details.working_dir,
        machine_id: exe.details.machine_id,
        description: exe.details.description,
        show: exe.details.show_command,
      },
      {
        target: SHORTCUT.target,
        arguments: SHORTCUT.arguments,
        working_dir: SHORTCUT.workingDir,
        machine_id: SHORTCUT.machineId,
        description: SHORTCUT.description,
        show: "minimized",
      },
    );
    assert.equal(exe.details.created, "2026-01-01T00:00:00.000Z");
    assert.equal(exe.details.modified, "2026-01-03T00:00:00.000Z");
    assert.equal(exe.details.drive_serial_number, SHORTCUT.driveSerial);
    assert.equal(exe.details.target_size, SHORTCUT.targetSize);
  });

  it("reports bytes appended to a shortcut as its overlay", async () => {
    const bytes = shortcut(SHORTCUT);
    const appended = Buffer.concat([bytes, Buffer.from("MZ hidden payload ".repeat(20))]);
    const { analysis } = await extractOk(server, appended, "a.lnk");
    assert.deepEqual(analysis.extra.executable.overlay, { offset: bytes.length, size: 18 * 20 });
  });

  it("counts a DEX's classes and strings and names its packages", async () => {
    const { analysis } = await extractOk(server, dexFile(CLASSES), "classes.dex");
    const exe = analysis.extra.executable;
    assert.equal(exe.format, "dex");
    assert.equal(exe.details.version, 35);
    assert.deepEqual(exe.details.classes, CLASSES);
    assert.deepEqual(exe.details.packages, ["com.example.loupe", "com.example.loupe.net", "org.sample.util"]);
    assert.equal(exe.counts.classes, 3);
    assert.equal(exe.counts.strings, 5); // the three classes, java.lang.Object and the source file
    assert.equal(exe.counts.types, 4);
  });

  it("does not take a Java class (same magic as a universal Mach-O) for an executable", async () => {
    const javaClass = Buffer.concat([Buffer.from("cafebabe00000041", "hex"), Buffer.alloc(64)]);
    const { analysis } = await extractOk(server, javaClass, "Main.class");
    assert.equal(analysis.extra.executable, undefined);
  });

  it("is in the extractor's entry of /analyzer/all", async () => {
    const res = await postFile(`${server.url}/analyzer/all`, dexFile(CLASSES), "classes.dex", {
      processors: "extractor,iocs",
    });
    const body = await json(res);
    assert.equal(body.processors.extractor.analysis.extra.executable.format, "dex");
    assert.match(body.processors.extractor.analysis.extra.hashes.sha512, /^[0-9a-f]{128}$/);
  });

  // Last: it makes no request (a pause between two requests could race keep-alive).
  it("is recognised by file(1) too (LNK and DEX as written here)", {
    skip: skipUnlessCommands("file"),
  }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "loupe-file-"));
    try {
      const kind = (name: string, bytes: Buffer) => {
        writeFileSync(path.join(dir, name), bytes);
        return execFileSync("file", ["-b", path.join(dir, name)], { encoding: "utf8" });
      };
      assert.match(kind("a.lnk", shortcut(SHORTCUT)), /MS Windows shortcut/);
      assert.match(kind("classes.dex", dexFile(CLASSES)), /Dalvik dex file version 035/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("executable facts: Mach-O built by clang and ld64.lld", {
  skip: skipUnlessCommands("clang", LD64 ?? "ld64.lld", LIPO ?? "llvm-lipo"),
}, () => {
  let server: TestFilesServer;
  let dir: string;
  const built = { x64: "", arm: "", fat: "" };
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "loupe-macho-"));
    built.x64 = clangMacho(dir, "x86_64");
    built.arm = clangMacho(dir, "arm64");
    built.fat = universalMacho(dir, [built.x64, built.arm]);
    server = await startFilesServer();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads a thin Mach-O: CPU, file type, segments and sections, imports, exports", async () => {
    const { analysis } = await extractOk(server, readFileSync(built.x64), "tool");
    const exe = analysis.extra.executable;
    assert.equal(exe.format, "macho");
    assert.equal(exe.architecture, "x86-64");
    assert.equal(exe.details.filetype, "executable");
    assert.equal(exe.details.universal, false);
    const text = exe.sections.find((s: { name: string }) => s.name === "__TEXT,__text");
    // llvm-objdump (from the llvm package) is the oracle of the section's size.
    const headers = execFileSync(LIPO?.replace("lipo", "objdump") ?? "llvm-objdump", ["-h", built.x64], {
      encoding: "utf8",
    });
    const size = /__text\s+([0-9a-f]+)/.exec(headers)?.[1];
    assert.equal(text.size, Number.parseInt(size ?? "", 16));
    assert.ok(text.entropy > 0);
    assert.ok(exe.imports[0].functions.includes("_puts"), JSON.stringify(exe.imports));
    assert.ok(exe.exports.includes("_loupe_macho_helper"));
    assert.ok(exe.entry_point > 0);
  });

  it("lists the architectures of a universal Mach-O", async () => {
    const { analysis } = await extractOk(server, readFileSync(built.fat), "tool-universal");
    const exe = analysis.extra.executable;
    assert.equal(exe.details.universal, true);
    assert.deepEqual(
      exe.details.architectures.map((a: { architecture: string }) => a.architecture),
      ["x86-64", "arm64"],
    );
    assert.equal(exe.counts.architectures, 2);
  });
});

describe("executable facts: packer hints on a MinGW-w64 PE", { skip: skipUnlessCommands(MINGW) }, () => {
  let server: TestFilesServer;
  let dir: string;
  let file = "";
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "loupe-packed-"));
    file = mingwPackedLookingPe(dir);
    server = await startFilesServer();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names a UPX section and a high-entropy section", async () => {
    const { analysis } = await extractOk(server, readFileSync(file), "packed.exe");
    const exe = analysis.extra.executable;
    const upx = exe.sections.find((s: { name: string }) => s.name === "UPX1");
    assert.ok(upx.entropy > 7.9, `${upx.entropy}`);
    assert.ok(exe.packer_hints.includes('section "UPX1" (UPX)'), JSON.stringify(exe.packer_hints));
    assert.ok(exe.packer_hints.some((h: string) => h.startsWith('high entropy section "UPX1"')));
  });
});
