/**
 * An upload's scratch folder, where its walk writes the children it takes out. The parent process
 * makes it before a walk (the extraction process only writes files into it, never makes it), and
 * its removal is certain: once removal has begun it is never made again, and it is renamed away
 * before it is emptied, so a sandbox process still writing (abandoned by a client that left, being
 * killed) cannot put a file back where the folder was.
 */
import { mkdir, rename, rm } from "node:fs/promises";

/** An extraction process writes one file at a time: one creation at most may land after the rename. */
const REMOVE_RETRIES = 3;

export class Scratch {
  readonly path: string;
  #removing = false;
  #made: Promise<void> | undefined;

  constructor(folder: string) {
    this.path = folder;
  }

  /** Makes the folder (once) and answers its path; refused once the upload is being removed. */
  async open(): Promise<string> {
    if (this.#removing) throw new Error("The upload was already removed (its client left).");
    this.#made ??= mkdir(this.path, { mode: 0o700 }).then(
      () => {},
      (err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
      },
    );
    await this.#made;
    return this.path;
  }

  /** Removes the folder and what it holds; it is never made again. */
  async remove(): Promise<void> {
    this.#removing = true;
    if (!this.#made) return;
    await this.#made.catch(() => {});
    const gone = `${this.path}.removed`;
    try {
      await rename(this.path, gone);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    await rm(gone, { recursive: true, force: true, maxRetries: REMOVE_RETRIES, retryDelay: 10 });
  }
}
