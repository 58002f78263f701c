/** 7z archives written by Debian's 7zz (7zip package), in a temp folder removed afterwards. */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function sevenZipArchive(
  files: Record<string, Buffer | string>,
  opts: { password?: string; encryptHeaders?: boolean } = {},
): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-7z-"));
  try {
    const src = path.join(dir, "src");
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(src, name)), { recursive: true });
      await writeFile(path.join(src, name), content);
    }
    const args = ["a", "-bd", "-y", "-t7z", "-mx=9"];
    if (opts.password) args.push(`-p${opts.password}`, `-mhe=${opts.encryptHeaders ? "on" : "off"}`);
    await run("7zz", [...args, path.join(dir, "out.7z"), "."], { cwd: src, timeout: 60_000 });
    return await readFile(path.join(dir, "out.7z"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
