/**
 * Many files in few clamd scans: they are packed, unencrypted and stored (not compressed), into
 * one zip sent by one INSTREAM — clamd opens zips itself, so one connection and one scan job see
 * a thousand files — in batches under a byte bound (clamd's StreamMaxLength). A batch clamd flags
 * is split in halves and scanned again until the detection names its file: clean batches, the
 * common case, cost one scan each. The zip is the members' own bytes between headers
 * (stored-zip.ts): nothing is copied or checksummed in JavaScript on the event loop.
 */
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { scanFile } from "./client.ts";
import { type ClamdAddress, ClamdError } from "./connection.ts";
import { InstreamSession, type ScanVerdict } from "./instream.ts";
import { storedZip, ZIP_MAX_MEMBERS, type ZipMember } from "./stored-zip.ts";

export interface BatchFile {
  /** The caller's name for the file (returned with its detection). */
  key: string;
  path: string;
  size: number;
}

export interface BatchOptions {
  /** Longest wait on clamd for one scan. */
  timeoutMs: number;
  /** Bytes of files packed into one scan at most; a larger file is scanned alone. */
  batchBytes: number;
  /** When the whole batch must stop (epoch ms): files not scanned by then are reported so. */
  deadline: number;
}

export interface BatchResult {
  detections: Array<{ key: string; signature: string }>;
  unscanned: Array<{ key: string; reason: string }>;
  /** INSTREAM scans made (for the benchmarks). */
  scans: number;
}

const CHUNK = 1024 * 1024;

export async function scanFiles(
  address: ClamdAddress,
  files: BatchFile[],
  opts: BatchOptions,
): Promise<BatchResult> {
  const result: BatchResult = { detections: [], unscanned: [], scans: 0 };
  for (const group of batches(files, opts.batchBytes)) await scanGroup(address, group, opts, result);
  return result;
}

/** Consecutive files up to `limit` bytes (and ZIP_MAX_MEMBERS) per batch; a file over it is a batch of its own. */
function batches(files: BatchFile[], limit: number): BatchFile[][] {
  const out: BatchFile[][] = [];
  let current: BatchFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (current.length > 0 && (bytes + f.size > limit || current.length === ZIP_MAX_MEMBERS)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += f.size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

async function scanGroup(
  address: ClamdAddress,
  group: BatchFile[],
  opts: BatchOptions,
  result: BatchResult,
): Promise<boolean> {
  if (Date.now() >= opts.deadline) {
    for (const f of group)
      result.unscanned.push({ key: f.key, reason: "the antivirus time limit came first" });
    return false;
  }
  let verdict: ScanVerdict;
  try {
    result.scans++;
    verdict = await scanOnce(address, group, opts);
  } catch (err) {
    if (!(err instanceof ClamdError)) throw err;
    if (err.short === "too_large" && group.length > 1) return splitAndScan(address, group, opts, result);
    for (const f of group) result.unscanned.push({ key: f.key, reason: err.message });
    return false;
  }
  if (!verdict.infected) return false;
  const [first] = group as [BatchFile];
  if (group.length === 1) {
    result.detections.push({ key: first.key, signature: verdict.signature });
    return true;
  }
  // Flagged as a whole but in no half alone (a signature over two files): the batch's first file names it.
  if (!(await splitAndScan(address, group, opts, result)))
    result.detections.push({ key: first.key, signature: verdict.signature });
  return true;
}

async function splitAndScan(
  address: ClamdAddress,
  group: BatchFile[],
  opts: BatchOptions,
  result: BatchResult,
): Promise<boolean> {
  const half = Math.ceil(group.length / 2);
  const left = await scanGroup(address, group.slice(0, half), opts, result);
  const right = await scanGroup(address, group.slice(half), opts, result);
  return left || right;
}

/** One INSTREAM: a single file as it is, several packed into one stored zip. */
async function scanOnce(address: ClamdAddress, group: BatchFile[], opts: BatchOptions): Promise<ScanVerdict> {
  if (group.length === 1) return scanFile(address, (group[0] as BatchFile).path, opts.timeoutMs);
  // One file at a time: a batch of a thousand small children must not hold a thousand descriptors.
  const members: ZipMember[] = [];
  for (const [i, f] of group.entries()) members.push({ name: `${i}`, bytes: await readFile(f.path) });
  const session = new InstreamSession(address, { timeoutMs: opts.timeoutMs });
  await pipeline(Readable.from(slices(storedZip(members))), session);
  return session.verdict;
}

/** The zip's buffers in pieces of at most CHUNK bytes (views, not copies): INSTREAM's chunks. */
function* slices(buffers: Buffer[]): Generator<Buffer> {
  for (const b of buffers) for (let at = 0; at < b.length; at += CHUNK) yield b.subarray(at, at + CHUNK);
}
