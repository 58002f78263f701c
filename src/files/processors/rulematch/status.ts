/**
 * A task's status board, shared between the pool's thread and the worker running it: the phase
 * (so the compile budget starts when compiling does, not while queued) and, when the engine
 * faulted, its message — the worker exits at once after a fault, so it cannot answer.
 */

export const PHASE = { queued: 0, compiling: 1, scanning: 2, faulted: 3 } as const;
export type Phase = (typeof PHASE)[keyof typeof PHASE];

const HEADER = 8; // phase, message length (Int32 each)
const MESSAGE_BYTES = 2048;

export function newStatus(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + MESSAGE_BYTES);
}

export function setPhase(status: SharedArrayBuffer, phase: Phase): void {
  const ints = new Int32Array(status, 0, 2);
  Atomics.store(ints, 0, phase);
  Atomics.notify(ints, 0);
}

export function phaseOf(status: SharedArrayBuffer): number {
  return Atomics.load(new Int32Array(status, 0, 2), 0);
}

/** Resolves once the phase is no longer `from`. */
export async function phaseLeft(status: SharedArrayBuffer, from: Phase): Promise<void> {
  const ints = new Int32Array(status, 0, 2);
  const wait = Atomics.waitAsync(ints, 0, from);
  if (wait.async) await wait.value;
}

export function recordFault(status: SharedArrayBuffer, message: string): void {
  const bytes = new TextEncoder().encode(message).subarray(0, MESSAGE_BYTES);
  new Uint8Array(status, HEADER, MESSAGE_BYTES).set(bytes);
  Atomics.store(new Int32Array(status, 0, 2), 1, bytes.length);
  setPhase(status, PHASE.faulted);
}

/** The engine's message when the worker faulted, else undefined. */
export function faultOf(status: SharedArrayBuffer): string | undefined {
  if (phaseOf(status) !== PHASE.faulted) return undefined;
  const length = Atomics.load(new Int32Array(status, 0, 2), 1);
  return new TextDecoder().decode(new Uint8Array(status, HEADER, length).slice());
}
