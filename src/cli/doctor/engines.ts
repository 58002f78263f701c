/**
 * Checks of the scanning engines: clamd (reachable, signatures fresh and real) and YARA-X (its
 * WebAssembly module loads and compiles a rule; so does the native build that scans small files).
 * The clamd checked is the one `files serve` would use: FILES_CLAMD_SOCKET, else FILES_CLAMD_HOST, else the
 * one it runs itself under LOUPE_DATA_DIR/clamd.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { readCommonConfig } from "../../common/config.ts";
import { type ClamdAddress, describeAddress, ping, version } from "../../files/clamd/client.ts";
import { findClamd } from "../../files/clamd/managed.ts";
import { readFilesConfig } from "../../files/config.ts";
import { configuredClamd } from "../../files/processors/antivirus.ts";
import type { YaraXScanResult } from "../../files/processors/rulematch/matches.ts";
import { loadBinding, NATIVE_PACKAGE } from "../../files/processors/rulematch/native/binding.ts";
import { nativeVersion } from "../../files/processors/rulematch/native/engine.ts";
import { type CheckResult, error, messageOf, ok, warn } from "./result.ts";
import { readDoctorSettings } from "./settings.ts";

const YARA_WASM = new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"));

/**
 * clamd's VERSION reply is `ClamAV <engine>/<database version>/<database date>`; with only local
 * signature files (Loupe's test database) there is no official database and no version or date.
 */
export function judgeSignatures(
  reply: { engine: string; database: string | null },
  maxAgeHours: number,
  now = Date.now(),
) {
  const [build, date] = (reply.database ?? "").split("/");
  const built = date ? Date.parse(date) : Number.NaN;
  if (!build || build === "0" || Number.isNaN(built))
    return { fresh: false, detail: `${reply.engine}, only local signature files (Loupe's test signatures)` };
  const hours = Math.floor((now - built) / 3_600_000);
  const detail = `${reply.engine}, signatures ${build} from ${new Date(built).toISOString()} (${hours} h old)`;
  return { fresh: hours <= maxAgeHours, detail };
}

async function findAddress(env: NodeJS.ProcessEnv): Promise<ClamdAddress | undefined> {
  const socket = path.join(readCommonConfig(env).dataDir, "clamd", "clamd.sock");
  return configuredClamd(readFilesConfig(env), existsSync(socket) ? { socket } : undefined);
}

export async function clamdCheck(env: NodeJS.ProcessEnv): Promise<CheckResult> {
  let address: ClamdAddress | undefined;
  let settings: ReturnType<typeof readDoctorSettings>;
  try {
    address = await findAddress(env);
    settings = readDoctorSettings(env);
  } catch (err) {
    return error("clamd", messageOf(err), "correct the configuration first");
  }
  if (!address) {
    return findClamd()
      ? warn(
          "clamd",
          "none configured; `files serve` starts its own with test signatures only",
          "set FILES_CLAMD_SOCKET or FILES_CLAMD_HOST to a clamd kept fresh by freshclam",
        )
      : error(
          "clamd",
          "none configured and clamd is not installed",
          "install clamav-daemon or set FILES_CLAMD_HOST",
        );
  }
  const where = "socket" in address ? address.socket : `${address.host}:${address.port}`;
  try {
    if (!(await ping(address, settings.timeoutMs))) throw new Error("clamd did not answer PONG");
    const verdict = judgeSignatures(
      await version(address, settings.timeoutMs),
      settings.signatureMaxAgeHours,
    );
    if (verdict.fresh) return ok("clamd", `${describeAddress(address)} ${where}: ${verdict.detail}`);
    return warn(
      "clamd",
      `${where}: ${verdict.detail}`,
      `run freshclam (signatures older than LOUPE_DOCTOR_SIGNATURE_MAX_AGE_HOURS=${settings.signatureMaxAgeHours} h miss new malware)`,
    );
  } catch (err) {
    return error(
      "clamd",
      `${where}: ${messageOf(err)}`,
      "start clamd or correct FILES_CLAMD_SOCKET / FILES_CLAMD_HOST / FILES_CLAMD_PORT",
    );
  }
}

/** Loads the engine the way the scan workers do and compiles and runs one rule. */
export async function yaraCheck(wasm: URL = YARA_WASM): Promise<CheckResult> {
  try {
    const yara = await import("@virustotal/yara-x");
    yara.initSync({ module: readFileSync(wasm) });
    const compiler = new yara.Compiler();
    compiler.addSource('rule doctor { strings: $a = "loupe" condition: $a }');
    const scanner = compiler.build().scanner();
    const result = scanner.scan(new TextEncoder().encode("loupe doctor")) as YaraXScanResult;
    const matched = result.matches?.length ?? 0;
    if (matched !== 1) throw new Error(`a test rule matched ${matched} times instead of once`);
    return ok("yara", "YARA-X loads, compiles and matches");
  } catch (err) {
    return error("yara", messageOf(err), "reinstall dependencies: ./loupe up (or npm ci)");
  }
}

/**
 * The native YARA-X build (an optional package, linux-x64 glibc) that scans files up to
 * FILES_RULES_NATIVE_MAX_BYTES: without it the WebAssembly build answers the same, slower (a warning);
 * with FILES_RULES_ENGINE=native every scan then fails (an error).
 */
export function yaraNativeCheck(env: NodeJS.ProcessEnv, pkg: string = NATIVE_PACKAGE): CheckResult {
  const engine = configuredEngine(env);
  if (engine === "wasm")
    return ok("yara-native", "off (FILES_RULES_ENGINE=wasm): the WebAssembly build scans");
  try {
    const rules = loadBinding(pkg).compile('rule doctor { strings: $a = "loupe" condition: $a }', {
      enableIncludes: false,
    });
    const matched = rules.scan(Buffer.from("loupe doctor")).map((m) => m.ruleIdentifier);
    if (matched.join() !== "doctor") throw new Error(`a test rule matched as [${matched.join(", ")}]`);
    return ok("yara-native", `${nativeVersion()} loads, compiles and matches`);
  } catch (err) {
    const detail = `${pkg}: ${messageOf(err)}`;
    const fix = "reinstall dependencies (npm ci installs it on linux-x64 with glibc)";
    return engine === "native"
      ? error("yara-native", `${detail}; with FILES_RULES_ENGINE=native every rule scan fails`, fix)
      : warn(
          "yara-native",
          `${detail}; small files are scanned by the WebAssembly build instead, slower`,
          `${fix}, or set FILES_RULES_ENGINE=wasm`,
        );
  }
}

/** FILES_RULES_ENGINE as `files serve` reads it; a configuration with other errors (reported by its own check) is read as written. */
function configuredEngine(env: NodeJS.ProcessEnv): string {
  try {
    return readFilesConfig(env).rulesEngine;
  } catch {
    return env.FILES_RULES_ENGINE ?? env.RULES_ENGINE ?? "auto";
  }
}
