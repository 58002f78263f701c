/**
 * Reads the files of a fetched repository snapshot: a bare git directory (read at HEAD with the git
 * CLI, one blob at a time, because such snapshots may lack their largest blobs) or a plain directory.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface Snapshot {
  /** The commit read, when the snapshot is a git directory. */
  commit: string | null;
  files: string[];
  /** The file's bytes as text, or null when the snapshot does not hold them. */
  read(file: string): string | null;
}

const MAX_BUFFER = 256 * 1024 * 1024;

function git(dir: string, args: string[]): Buffer | null {
  const r = spawnSync("git", [`--git-dir=${dir}`, ...args], { maxBuffer: MAX_BUFFER });
  return r.status === 0 ? r.stdout : null;
}

export function openSnapshot(dir: string): Snapshot {
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  const bare = existsSync(path.join(dir, "HEAD")) && existsSync(path.join(dir, "objects"));
  return bare ? gitSnapshot(dir) : treeSnapshot(dir);
}

function gitSnapshot(dir: string): Snapshot {
  const commit = git(dir, ["rev-parse", "HEAD"])?.toString().trim() ?? null;
  const list = git(dir, ["ls-tree", "-r", "-z", "--name-only", "HEAD"]);
  if (!commit || !list) throw new Error(`${dir}: git could not read HEAD`);
  return {
    commit,
    files: list.toString().split("\0").filter(Boolean).sort(),
    read: (file) => git(dir, ["cat-file", "blob", `HEAD:${file}`])?.toString("utf8") ?? null,
  };
}

function treeSnapshot(dir: string): Snapshot {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files.push(child);
    }
  };
  walk("");
  return { commit: null, files: files.sort(), read: (file) => readFileSync(path.join(dir, file), "utf8") };
}
