/**
 * The files named on the command line: each must be a regular file. A directory, a FIFO, a socket
 * or a device is refused before it is opened (opening a FIFO with no writer would wait forever).
 */
import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import path from "node:path";

export interface InputFile {
  /** The path as given. */
  path: string;
  name: string;
  size: number;
}

/** A file that cannot be analysed: its report says why, the other files go on. */
export class InputError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "InputError";
    this.code = code;
  }
}

function kindOf(info: Awaited<ReturnType<typeof stat>>): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** Opens `file` for reading once it is known to be a regular file (checked again on the handle). */
export async function openInput(file: string): Promise<{ input: InputFile; handle: FileHandle }> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new InputError("not_found", `${file}: no such file`);
    if (code === "EACCES") throw new InputError("unreadable", `${file}: permission denied`);
    throw new InputError("unreadable", `${file}: ${(err as Error).message}`);
  }
  if (!info.isFile()) throw new InputError("not_a_file", `${file}: is ${kindOf(info)}, not a file`);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: should the path have become a FIFO since the check, opening it does not wait.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new InputError("unreadable", `${file}: ${(err as Error).message}`);
  }
  const opened = await handle.stat();
  if (!opened.isFile()) {
    await handle.close();
    throw new InputError("not_a_file", `${file}: is ${kindOf(opened)}, not a file`);
  }
  return { input: { path: file, name: path.basename(file), size: opened.size }, handle };
}
