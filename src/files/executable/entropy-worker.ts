/**
 * Runs in a worker thread (piscina): the Shannon entropy of file ranges (sections), in order,
 * until a byte budget is spent, so overlapping sections cannot make one file read many times.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export interface EntropyTask {
  path: string;
  ranges: Array<{ offset: number; size: number }>;
  /** Bytes read at most over all ranges; ranges past it get null. */
  budget: number;
}

const CHUNK = 1 << 20;

function entropyOf(fd: number, offset: number, size: number, buffer: Buffer): number {
  const counts = new Float64Array(256);
  for (let done = 0; done < size; ) {
    const read = readSync(fd, buffer, 0, Math.min(CHUNK, size - done), offset + done);
    if (read === 0) break;
    for (let i = 0; i < read; i++) counts[buffer[i] as number] = (counts[buffer[i] as number] ?? 0) + 1;
    done += read;
  }
  let bits = 0;
  for (const count of counts) if (count > 0) bits -= (count / size) * Math.log2(count / size);
  return bits;
}

export default function run(task: EntropyTask): Array<number | null> {
  const fd = openSync(task.path, "r");
  try {
    const fileSize = fstatSync(fd).size;
    const buffer = Buffer.alloc(CHUNK);
    let left = task.budget;
    return task.ranges.map(({ offset, size }) => {
      // A range reaching past the end of the file is not the section the headers describe.
      if (size <= 0 || offset < 0 || offset + size > fileSize || size > left) return null;
      left -= size;
      return entropyOf(fd, offset, size, buffer);
    });
  } finally {
    closeSync(fd);
  }
}
