/**
 * Large bytes held as a list of slices and never joined into one Buffer on the event loop: joining
 * (or receiving in one IPC message) a 25 MB rendered export cost 100–160 ms of the main thread's CPU
 * on this machine, where each slice costs a millisecond. Slices are shared: never write into them.
 */
import { Readable } from "node:stream";

export type Chunks = readonly Buffer[];

/** Bytes in all the slices. */
export const sizeOf = (chunks: Chunks): number => chunks.reduce((sum, c) => sum + c.length, 0);

/** Views of `bytes`, `size` bytes each (the last shorter): no copy. */
export function sliced(bytes: Uint8Array, size: number): Buffer[] {
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const slices: Buffer[] = [];
  for (let at = 0; at < whole.length; at += size) slices.push(whole.subarray(at, at + size));
  return slices;
}

/** The last `n` bytes as one small Buffer (a copy of `n` bytes at most). */
export function lastBytes(chunks: Chunks, n: number): Buffer {
  const parts: Buffer[] = [];
  let wanted = n;
  for (let i = chunks.length - 1; i >= 0 && wanted > 0; i--) {
    const c = chunks[i] as Buffer;
    parts.unshift(c.subarray(Math.max(0, c.length - wanted)));
    wanted -= Math.min(wanted, c.length);
  }
  return Buffer.concat(parts);
}

/** The slices without their last `n` bytes (views, no copy). */
export function withoutLast(chunks: Chunks, n: number): Buffer[] {
  const kept = [...chunks];
  let dropped = n;
  while (dropped > 0 && kept.length > 0) {
    const c = kept.pop() as Buffer;
    if (c.length > dropped) kept.push(c.subarray(0, c.length - dropped));
    dropped -= Math.min(dropped, c.length);
  }
  return kept;
}

/** A stream of the slices, one at a time as the socket drains. */
export const streamOf = (chunks: Chunks): Readable => Readable.from(chunks, { objectMode: false });

/** One Buffer of the slices, for small bodies and tests (a copy: not for large ones on the event loop). */
export const joined = (chunks: Chunks): Buffer => Buffer.concat(chunks as Buffer[]);
