/**
 * Checks of the machine: the Node version and free disk space. A folder that does not exist yet
 * (LOUPE_DATA_DIR before the first start) is measured at its nearest existing parent, where it will be.
 */
import { existsSync } from "node:fs";
import { statfs } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readCommonConfig } from "../../common/config.ts";
import { readFilesConfig } from "../../files/config.ts";
import { type CheckResult, error, messageOf, ok } from "./result.ts";
import { readDoctorSettings } from "./settings.ts";

const NODE_MAJOR = 24;

export function nodeCheck(version = process.versions.node): CheckResult {
  const major = Number(version.split(".")[0]);
  if (major >= NODE_MAJOR) return ok("node", `Node ${version}`);
  return error(
    "node",
    `Node ${version} is older than ${NODE_MAJOR}`,
    "run through ./loupe, which brings Node 24",
  );
}

function existingAncestor(dir: string): string {
  let current = path.resolve(dir);
  while (!existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

async function freeMb(dir: string): Promise<number> {
  const s = await statfs(existingAncestor(dir));
  return Math.floor((s.bavail * s.bsize) / 1_048_576);
}

export async function diskChecks(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  let folders: Record<string, string>;
  let minFreeMb: number;
  try {
    folders = {
      "disk LOUPE_DATA_DIR": readCommonConfig(env).dataDir,
      "disk FILES_TMP_DIR": readFilesConfig(env).tmpDir,
      "disk temp": os.tmpdir(),
    };
    minFreeMb = readDoctorSettings(env).minFreeMb;
  } catch (err) {
    return [error("disk", messageOf(err), "correct the configuration first")];
  }
  const results: CheckResult[] = [];
  for (const [check, dir] of Object.entries(folders)) {
    try {
      const free = await freeMb(dir);
      const detail = `${free} MB free under ${dir}`;
      results.push(
        free >= minFreeMb
          ? ok(check, detail)
          : error(
              check,
              `${detail} (below LOUPE_DOCTOR_MIN_FREE_MB=${minFreeMb})`,
              "free space or move the folder",
            ),
      );
    } catch (err) {
      results.push(error(check, `${dir}: ${messageOf(err)}`, "make the folder reachable by this user"));
    }
  }
  return results;
}
