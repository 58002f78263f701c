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
