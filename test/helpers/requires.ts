/**
 * Suites that need a system tool or service skip with a reason when it is missing, except under
 * LOUPE_REQUIRE_SERVICES=1 (CI), where a missing dependency fails the run instead.
 */
import { spawnSync } from "node:child_process";

export const servicesRequired = process.env.LOUPE_REQUIRE_SERVICES === "1";

/** `false` when every command is on the PATH; else the skip reason (or a thrown error under CI). */
export function skipUnlessCommands(...commands: string[]): string | false {
  const missing = commands.filter((c) => spawnSync("sh", ["-c", `command -v ${c}`]).status !== 0);
  if (missing.length === 0) return false;
  const reason = `needs ${missing.join(", ")} (installed by ./loupe test when run as root)`;
  if (servicesRequired) throw new Error(`LOUPE_REQUIRE_SERVICES=1 but this suite ${reason}`);
  return reason;
}
