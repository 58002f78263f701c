/**
 * A file scanned by YARA-X's WebAssembly build without a copy: the file is read straight into
 * memory the engine allocated, and scanned there. The binding's `scan(bytes)` would copy a buffer
 * the file was first read into (100 MB: ≈ 24 ms, and the thread's 100 MB read buffer kept beside
 * the engine's memory; docs/benchmarks.md). This calls what the binding's generated glue calls
 * (`yara_x_js.js`, `Scanner.scan`): allocate `len` bytes in the engine, `scanner_scan(scanner,
 * ptr, len)` (the engine frees them), the answer taken from the externref table. The engine may
 * reuse those bytes once the scan returns, so match text is read from the file, never from there.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Scanner } from "@virustotal/yara-x";

/** The engine's exports `initSync` returns; the ones used here, as the glue declares them. */
export interface EngineExports {
  memory: { buffer: ArrayBuffer };
  __wbindgen_malloc_command_export(size: number, align: number): number;
  scanner_scan(scanner: number, ptr: number, len: number): [number, number, number];
  __wbindgen_externrefs: { get(index: number): unknown };
  __externref_table_dealloc_command_export(index: number): void;
}

/** Whether this build of the binding has what the in-place scan calls (else: its public `scan`). */
export function supportsInPlaceScan(engine: object, scanner: Scanner): boolean {
  const e = engine as Partial<EngineExports>;
  return (
    e.memory?.buffer instanceof ArrayBuffer &&
    typeof e.__wbindgen_malloc_command_export === "function" &&
    typeof e.scanner_scan === "function" &&
    typeof e.__wbindgen_externrefs?.get === "function" &&
    typeof e.__externref_table_dealloc_command_export === "function" &&
    typeof (scanner as unknown as { __wbg_ptr?: unknown }).__wbg_ptr === "number"
  );
}

/** Reads bytes of the scanned file at an offset: for the text of its matches. */
export type BytesAt = (offset: number, length: number) => Uint8Array;

/**
 * Scans the file at `path` in place; `withResult` gets the engine's answer and a reader of the
 * file's bytes (open until it returns).
 */
export function scanFileInPlace<T>(
  engine: EngineExports,
  scanner: Scanner,
  path: string,
  withResult: (result: unknown, bytesAt: BytesAt) => T,
): T {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const ptr = engine.__wbindgen_malloc_command_export(size, 1) >>> 0;
    // A view made after the allocation: allocating may have grown (and replaced) the memory's buffer.
    const target = new Uint8Array(engine.memory.buffer, ptr, size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, target, filled, size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    // A file cut short meanwhile: what the engine last held there must not be scanned as its tail.
    target.fill(0, filled);
    const handle = (scanner as unknown as { __wbg_ptr: number }).__wbg_ptr;
    const [value, error, failed] = engine.scanner_scan(handle, ptr, size);
    if (failed) throw takeExternref(engine, error);
    const bytesAt: BytesAt = (offset, length) => {
      const bytes = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const n = readSync(fd, bytes, 0, bytes.length, offset);
      return bytes.subarray(0, n);
    };
    return withResult(takeExternref(engine, value), bytesAt);
  } finally {
    closeSync(fd);
  }
}

function takeExternref(engine: EngineExports, index: number): unknown {
  const value: unknown = engine.__wbindgen_externrefs.get(index);
  engine.__externref_table_dealloc_command_export(index);
  return value;
}
