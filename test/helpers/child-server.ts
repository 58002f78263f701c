/** Starts `./loupe …` as a child process on a free port and waits until it answers. */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";

export interface ChildServer {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startChildServer(
  args: string[],
  env: Record<string, string>,
  healthPath = "/",
  portVar = "FILES_PORT",
  /** Receives what the service prints on stdout (its logs); ignored when absent. */
  onStdout?: (chunk: Buffer) => void,
): Promise<ChildServer> {
  // A port given in env is kept (restarting a service where its clients expect it).
  const port = Number(env[portVar]) || (await freePort());
  const child = spawn(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", path.join(ROOT, "src/cli/main.ts"), ...args],
    {
      // Local feeds are downloaded only from the fakes a test points them at.
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        INTEL_FEEDS_REFRESH_MINUTES: "0",
        ...env,
        [portVar]: String(port),
      },
      stdio: ["ignore", onStdout ? "pipe" : "ignore", "inherit"],
    },
  );
  if (onStdout) child.stdout?.on("data", onStdout);
  const url = `http://127.0.0.1:${port}`;
  // Generous: on a machine shared by several builds a start has taken over 30 s.
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const res = await fetch(url + healthPath);
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL"); // a late starter must not run on unowned
        throw new Error(`server ${args.join(" ")} did not start`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    pid: child.pid ?? 0,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A standalone intel worker (`./loupe intel worker`) in a child process. */
export function spawnIntelWorker(env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", path.join(ROOT, "src/cli/main.ts"), "intel", "worker"],
    {
      env: { ...process.env, LOG_LEVEL: "silent", INTEL_FEEDS_REFRESH_MINUTES: "0", ...env },
      stdio: "ignore",
    },
  );
}
