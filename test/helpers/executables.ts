/**
 * Executables built at test time by Debian's own tools: ELF by gcc (with symbols, stripped, a
 * shared library), PE by the MinGW-w64 cross compiler, Mach-O by clang and LLVM's ld64.lld (thin
 * for x86-64 and arm64, and a universal file of both by llvm-lipo). Each builder returns a path.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";

/** A small program: two functions of its own, a string and printf/puts from libc. */
const HELLO_C = `#include <stdio.h>
int loupe_helper(int x) { return x * 3; }
int main(int argc, char **argv) { printf("loupe %d\\n", loupe_helper(argc)); puts(argv[0]); return 0; }
`;

/** Exported functions with names telfhash keeps (not libc's, not starting with _, mem or str). */
export const LIBRARY_FUNCTIONS = [
  "beacon_interval",
  "connect_relay",
  "decrypt_payload",
  "enumerate_drives",
  "fetch_config",
  "gather_hostinfo",
  "hide_window",
  "inject_thread",
  "jitter_sleep",
  "keylog_flush",
  "list_processes",
  "mutex_guard",
  "next_task",
  "open_tunnel",
  "persist_runkey",
  "query_proxy",
  "rotate_c2",
  "screenshot_grab",
  "upload_chunk",
  "verify_victim",
  "wipe_traces",
  "xor_block",
  "yield_control",
  "zip_archive",
];

const LIBRARY_C = LIBRARY_FUNCTIONS.map((name, n) => `int ${name}(int x) { return x + ${n}; }`).join("\n");

function compile(
  dir: string,
  source: string,
  name: string,
  compiler: string,
  args: string[],
  libs: string[] = [],
): string {
  const src = path.join(dir, `${name}.c`);
  const out = path.join(dir, name);
  writeFileSync(src, source);
  execFileSync(compiler, [...args, "-o", out, src, ...libs], { stdio: "pipe" });
  return out;
}

export function gccElf(dir: string, options: { strip?: boolean } = {}): string {
  const out = compile(dir, HELLO_C, options.strip ? "hello-stripped" : "hello", "gcc", ["-O0"]);
  if (options.strip) execFileSync("strip", [out]);
  return out;
}

export function gccSharedLibrary(dir: string): string {
  return compile(dir, LIBRARY_C, "libloupe.so", "gcc", ["-shared", "-fPIC"]);
}

/**
 * A Windows program importing from kernel32 and user32 by name, from ws2_32 by ordinal only
 * (through a .def import library: ordinal 115 is WSAStartup, 116 WSACleanup) and from a DLL of
 * its own by ordinal 7, with one export.
 */
const PE_C = `#include <windows.h>
int WINAPI loupe_ordinal_startup(WORD, void *);
int WINAPI loupe_ordinal_cleanup(void);
int loupe_by_ordinal(void);
__declspec(dllexport) int loupe_exported(int x) { return x + 1; }
int main(void) {
  char buffer[256];
  GetModuleFileNameA(NULL, buffer, sizeof buffer);
  char data[512];
  loupe_ordinal_startup(0x202, data);
  loupe_ordinal_cleanup();
  loupe_by_ordinal();
  MessageBoxA(NULL, buffer, "loupe", MB_OK);
  return (int)GetTickCount();
}
`;

const WS2_DEF = `LIBRARY ws2_32.dll
EXPORTS
loupe_ordinal_startup @115 NONAME
loupe_ordinal_cleanup @116 NONAME
`;

/** A DLL of our own imported by ordinal: no table names its ordinals, so they stay ord<N>. */
const HELPER_DEF = `LIBRARY loupehelper.dll
EXPORTS
loupe_by_ordinal @7 NONAME
`;

export const MINGW = "x86_64-w64-mingw32-gcc";

/** An import library made by dlltool from a .def file. */
function importLibrary(dir: string, name: string, def: string): string {
  const defFile = path.join(dir, `${name}.def`);
  const lib = path.join(dir, `lib${name}.a`);
  writeFileSync(defFile, def);
  execFileSync("x86_64-w64-mingw32-dlltool", ["-d", defFile, "-l", lib], { stdio: "pipe" });
  return lib;
}

export function mingwPe(dir: string): string {
  const ws2 = importLibrary(dir, "ws2_ordinals", WS2_DEF);
  const helper = importLibrary(dir, "loupehelper", HELPER_DEF);
  return compile(dir, PE_C, "loupe.exe", MINGW, ["-O0", "-s"], [ws2, helper, "-luser32"]);
}

/**
 * A Windows program carrying a section named UPX1 full of random bytes (as a packer leaves its
 * compressed image), made by the compiler itself with a section attribute.
 */
export function mingwPackedLookingPe(dir: string): string {
  const bytes = [...randomBytes(16_384)].join(",");
  const source = `__attribute__((section("UPX1"), used)) const unsigned char packed[] = {${bytes}};
int main(void) { return packed[7]; }
`;
  return compile(dir, source, "packed.exe", MINGW, ["-O0", "-s"]);
}

/** The first of these commands on the PATH (Debian names LLVM's tools with their version). */
function firstCommand(...names: string[]): string | undefined {
  return names.find((n) => spawnSync("sh", ["-c", `command -v ${n}`]).status === 0);
}

export const LD64 = firstCommand("ld64.lld", "ld64.lld-16", "ld64.lld-15", "ld64.lld-14");
export const LIPO = firstCommand("llvm-lipo", "llvm-lipo-16", "llvm-lipo-15", "llvm-lipo-14");

/** A program calling puts from a library it does not link (bound at run time: `dynamic_lookup`). */
const MACHO_C = `int puts(const char *);
int loupe_macho_helper(int x) { return x * 7; }
int main(void) { puts("loupe"); return loupe_macho_helper(6); }
`;

export function clangMacho(dir: string, arch: "x86_64" | "arm64"): string {
  const src = path.join(dir, "macho.c");
  const object = path.join(dir, `macho-${arch}.o`);
  const out = path.join(dir, `macho-${arch}`);
  writeFileSync(src, MACHO_C);
  execFileSync("clang", ["-target", `${arch}-apple-macos11`, "-c", src, "-o", object], { stdio: "pipe" });
  const platform = ["-platform_version", "macos", "11.0", "11.0"];
  const link = ["-arch", arch, ...platform, "-e", "_main", "-undefined", "dynamic_lookup", "-o", out, object];
  execFileSync(LD64 ?? "ld64.lld", link, { stdio: "pipe" });
  return out;
}

export function universalMacho(dir: string, slices: string[]): string {
  const out = path.join(dir, "macho-universal");
  execFileSync(LIPO ?? "llvm-lipo", ["-create", ...slices, "-output", out], { stdio: "pipe" });
  return out;
}

/**
 * `file` signed with Authenticode by osslsigncode, with a self-signed certificate made by openssl
 * for the occasion; returns the signed copy and the certificate's serial (openssl's, as colon hex).
 */
export function signedPe(dir: string, file: string): { signed: string; serial: string } {
  const key = path.join(dir, "signer-key.pem");
  const cert = path.join(dir, "signer-cert.pem");
  const signed = path.join(dir, "signed.exe");
  const subject = "/CN=Loupe Test Signer";
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "30",
      "-subj",
      subject,
    ],
    { stdio: "pipe" },
  );
  execFileSync(
    "osslsigncode",
    ["sign", "-certs", cert, "-key", key, "-n", "Loupe", "-in", file, "-out", signed],
    { stdio: "pipe" },
  );
  const serial = execFileSync("openssl", ["x509", "-in", cert, "-noout", "-serial"], { encoding: "utf8" });
  return { signed, serial: serial.trim().replace(/^serial=/, "") };
}

/**
 * An ELF64 object (written directly: an assembler takes minutes for this) with a `.symtab` of
 * `count` function symbols, named `sym0`… from a shared pool of `names` strings, and a `.strtab`
 * and `.shstrtab`: two million symbols are a 48 MB file built in a fraction of a second. `copies`
 * more symbol-table section headers point at the same symbols (amplification without bytes).
 */
export function elfWithSymbols(count: number, options: { names?: number; copies?: number } = {}): Buffer {
  const names = options.names ?? 1000;
  const copies = options.copies ?? 0;
  const shstrtab = Buffer.from("\0.symtab\0.strtab\0.shstrtab\0.text\0");
  const nameOffsets: number[] = [];
  const strings: Buffer[] = [Buffer.from([0])];
  let strSize = 1;
  for (let n = 0; n < names; n++) {
    nameOffsets.push(strSize);
    const s = Buffer.from(`sym${n}\0`);
    strings.push(s);
    strSize += s.length;
  }
  const strtab = Buffer.concat(strings);
  const text = Buffer.from([0xc3]); // ret
  const textAt = 64;
  const symtabAt = 128;
  const symtab = Buffer.alloc(24 * count);
  for (let i = 1; i < count; i++) {
    const at = 24 * i;
    symtab.writeUInt32LE(nameOffsets[i % names] ?? 0, at);
    symtab[at + 4] = 0x12; // STB_GLOBAL, STT_FUNC
    symtab.writeUInt16LE(4, at + 6); // defined in .text
  }
  const strtabAt = symtabAt + symtab.length;
  const shstrtabAt = strtabAt + strtab.length;
  const shoff = Math.ceil((shstrtabAt + shstrtab.length) / 8) * 8;
  const file = Buffer.alloc(shoff + (5 + copies) * 64);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(file, 0);
  file.writeUInt16LE(1, 16); // relocatable
  file.writeUInt16LE(62, 18); // x86-64
  file.writeUInt32LE(1, 20);
  file.writeBigUInt64LE(BigInt(shoff), 40);
  file.writeUInt16LE(64, 52);
  file.writeUInt16LE(64, 58);
  file.writeUInt16LE(5 + copies, 60);
  file.writeUInt16LE(3, 62); // .shstrtab
  text.copy(file, textAt);
  symtab.copy(file, symtabAt);
  strtab.copy(file, strtabAt);
  shstrtab.copy(file, shstrtabAt);
  const section = (
    n: number,
    name: number,
    type: number,
    at: number,
    size: number,
    link = 0,
    entsize = 0,
  ) => {
    const h = shoff + 64 * n;
    file.writeUInt32LE(name, h);
    file.writeUInt32LE(type, h + 4);
    file.writeBigUInt64LE(BigInt(at), h + 24);
    file.writeBigUInt64LE(BigInt(size), h + 32);
    file.writeUInt32LE(link, h + 40);
    file.writeUInt32LE(type === 2 ? 1 : 0, h + 44); // symtab: first global symbol
    file.writeBigUInt64LE(1n, h + 48);
    file.writeBigUInt64LE(BigInt(entsize), h + 56);
  };
  section(1, 1, 2, symtabAt, symtab.length, 2, 24); // .symtab, linked to .strtab
  section(2, 9, 3, strtabAt, strtab.length); // .strtab
  section(3, 17, 3, shstrtabAt, shstrtab.length); // .shstrtab
  section(4, 27, 1, textAt, text.length); // .text
  for (let n = 0; n < copies; n++) section(5 + n, 1, 2, symtabAt, symtab.length, 2, 24);
  return file;
}

/** A 64-bit x86-64 Mach-O executable header followed by `count` LC_UUID load commands (24 bytes each). */
export function machoWithLoadCommands(count: number): Buffer {
  const file = Buffer.alloc(32 + 24 * count);
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(0x01000007, 4); // x86-64
  file.writeUInt32LE(3, 8);
  file.writeUInt32LE(2, 12); // MH_EXECUTE
  file.writeUInt32LE(count, 16);
  file.writeUInt32LE(24 * count, 20);
  for (let i = 0; i < count; i++) {
    file.writeUInt32LE(0x1b, 32 + 24 * i); // LC_UUID
    file.writeUInt32LE(24, 36 + 24 * i);
  }
  return file;
}

/** A universal (fat) Mach-O header over `slices` (written directly), each at a 4 KiB-aligned offset. */
export function fatMachoOf(slices: Buffer[]): Buffer {
  const header = Buffer.alloc(4096);
  header.writeUInt32BE(0xcafebabe, 0);
  header.writeUInt32BE(slices.length, 4);
  let offset = header.length;
  const parts: Buffer[] = [header];
  slices.forEach((slice, n) => {
    const at = 8 + 20 * n;
    header.writeUInt32BE(0x01000007, at); // x86-64
    header.writeUInt32BE(3, at + 4);
    header.writeUInt32BE(offset, at + 8);
    header.writeUInt32BE(slice.length, at + 12);
    header.writeUInt32BE(12, at + 16); // 4 KiB alignment
    const padded = Buffer.alloc(Math.ceil(slice.length / 4096) * 4096);
    slice.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}
