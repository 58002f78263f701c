/** Installs Debian packages the project needs when they are missing and we are root with apt. */
import { execFileSync, spawnSync } from "node:child_process";
import type { Logger } from "./logger.ts";

let aptUpdated = false;

export function isDebianPackageInstalled(name: string): boolean {
  const r = spawnSync("dpkg-query", ["-W", "-f=\u0024{Status}", name], { encoding: "utf8" });
  return r.status === 0 && r.stdout.includes("install ok installed");
}

export function canInstallSystemPackages(): boolean {
  return process.getuid?.() === 0 && spawnSync("apt-get", ["--version"]).status === 0;
}

/**
 * Makes sure the given Debian packages are installed. Returns the ones still missing (not root,
 * no apt, or the install failed) so the caller can say what will be skipped.
 */
export function ensureDebianPackages(names: string[], log: Pick<Logger, "info" | "warn">): string[] {
  const missing = names.filter((n) => !isDebianPackageInstalled(n));
  if (missing.length === 0) return [];
  if (!canInstallSystemPackages()) {
    log.warn(`missing system packages (install them as root): ${missing.join(" ")}`);
    return missing;
  }
  log.info(`installing system packages: ${missing.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    if (!aptUpdated) {
      execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "ignore", "inherit"], env });
      aptUpdated = true;
    }
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], {
      stdio: ["ignore", "ignore", "inherit"],
      env,
    });
  } catch (err) {
    log.warn(`could not install ${missing.join(" ")}: ${String(err)}`);
  }
  return missing.filter((n) => !isDebianPackageInstalled(n));
}
