/** `./loupe --version`: package.json's version and, in a git checkout, the commit it runs. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../common/config.ts";

export function loupeVersion(): string {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  return `loupe ${version}${commitSuffix()} (Node ${process.versions.node})`;
}

function commitSuffix(): string {
  try {
    const out = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2_000,
    });
    return ` ${out.trim()}`;
  } catch {
    return ""; // not a git checkout (a container image): the version alone
  }
}
