/**
 * Drives deploy/compose.yaml for the deploy bench: a project of its own (own containers, network
 * and volumes), env files written to a temp folder, and the container commands it needs
 * (exec, kill, inspect) through podman-compose/podman or docker compose/docker.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";

export interface Engine {
  /** podman or docker. */
  cli: string;
  /** The compose command before its arguments. */
  compose: string[];
}

/** podman with podman-compose, else docker with its compose plugin (daemon running); else why not. */
export function findEngine(): Engine | string {
  const ok = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
  if (ok("podman", "--version") && ok("podman-compose", "version"))
    return { cli: "podman", compose: ["podman-compose"] };
  if (ok("docker", "info") && ok("docker", "compose", "version"))
    return { cli: "docker", compose: ["docker", "compose"] };
  return "no container engine: podman with podman-compose, or docker with its compose plugin and a running daemon";
}

export interface Ports {
  files: number;
  intel: number;
}

export class Stack {
  readonly project = `loupe-bench-${process.pid}`;
  readonly adminPath = randomBytes(16).toString("hex");
  readonly #dir = mkdtempSync(path.join(os.tmpdir(), "loupe-deploy-bench-"));
  readonly #env: NodeJS.ProcessEnv;

  readonly engine: Engine;
  readonly ports: Ports;

  constructor(engine: Engine, ports: Ports, opts: { vendorDelayMs: number; leaseMs: number }) {
    this.engine = engine;
    this.ports = ports;
    const password = randomBytes(12).toString("hex");
    const loupeEnv = path.join(this.#dir, "loupe.env");
    const postgresEnv = path.join(this.#dir, "postgres.env");
    writeFileSync(postgresEnv, `POSTGRES_USER=loupe\nPOSTGRES_DB=loupe\nPOSTGRES_PASSWORD=${password}\n`);
    writeFileSync(
      loupeEnv,
      [
        `DATABASE_URL=postgres://loupe:${password}@postgres:5432/loupe`,
        `BASE_URL=http://127.0.0.1:${ports.intel}`,
        `ADMIN_PATH=${this.adminPath}`,
        `SECRET_KEY=${randomBytes(32).toString("hex")}`,
        "LOG_LEVEL=info",
        "INTEL_CONNECTORS=virustotal",
        "INTEL_VENDOR_URL_VIRUSTOTAL=http://fake-vendor:7101",
        "INTEL_VENDOR_RETRIES=0",
        `INTEL_VENDOR_TIMEOUT_MS=${opts.vendorDelayMs + 20_000}`,
        `INTEL_JOB_LEASE_MS=${opts.leaseMs}`,
        "INTEL_RETRY_AFTER=1",
        "",
      ].join("\n"),
    );
    this.#env = {
      ...process.env,
      LOUPE_ENV_FILE: loupeEnv,
      POSTGRES_ENV_FILE: postgresEnv,
      FILES_PUBLISH: `127.0.0.1:${ports.files}`,
      INTEL_PUBLISH: `127.0.0.1:${ports.intel}`,
      CLAMAV_SEED_DIR: path.join(ROOT, "src/files/clamd/signatures"),
      FAKE_VENDOR_DELAY_MS: String(opts.vendorDelayMs),
    };
  }

  /** Runs a compose subcommand of this project; throws with its output when it fails. */
  compose(...args: string[]): string {
    const file = path.join(ROOT, "deploy/compose.yaml");
    const [cmd = "", ...pre] = this.engine.compose;
    return run(cmd, [...pre, "-p", this.project, "-f", file, ...args], this.#env);
  }

  /** Runs an engine command (exec, kill, inspect, ps…). */
  cli(...args: string[]): string {
    return run(this.engine.cli, args, this.#env);
  }

  /** The containers of a service, by name (podman-compose: project_service_N; docker: project-service-N). */
  containers(service: string): string[] {
    const names = this.cli("ps", "-a", "--format", "{{.Names}}").split("\n");
    const pattern = new RegExp(`^${this.project}[_-]${service}[_-]\\d+$`);
    return names.filter((n) => pattern.test(n)).sort();
  }

  container(service: string): string {
    const [first] = this.containers(service);
    if (!first) throw new Error(`no container for service ${service}`);
    return first;
  }

  /** `node /opt/loupe/src/cli/main.ts …` inside the container of `opts.service` (intel by default). */
  loupe(args: string[], input?: string, opts: { anyExit?: boolean; service?: string } = {}): string {
    const where = this.container(opts.service ?? "intel");
    const cmd = ["exec", ...(input ? ["-i"] : []), where, "node", "/opt/loupe/src/cli/main.ts"];
    return run(this.engine.cli, [...cmd, ...args], this.#env, input, opts.anyExit);
  }

  removeFiles(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string, anyExit = false): string {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", input, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 && !(anyExit && r.status !== null && r.stdout))
    throw new Error(
      `${cmd} ${args.join(" ")} → exit ${r.status}\n${r.stderr?.slice(-2000)}${r.stdout?.slice(-1000)}`,
    );
  return r.stdout;
}
