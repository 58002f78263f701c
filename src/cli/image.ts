/** `./loupe image build [--with-proxy] [--rebuild-base]`: the stack's images from Debian packages (deploy/image/build.sh). */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ROOT } from "../common/config.ts";
import { UsageError } from "./usage.ts";

const USAGE = `Usage: ./loupe image build [--with-proxy] [--rebuild-base]

  Builds localhost/loupe, loupe-postgres and loupe-clamav (and loupe-caddy with --with-proxy)
  from Debian's packages with mmdebstrap and podman (or CONTAINER_ENGINE=docker); no registry.
  --rebuild-base  make the Debian base again (otherwise it is kept between builds)
`;

export async function image(args: string[]): Promise<number | undefined> {
  const [command, ...rest] = args;
  if (command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command !== "build") throw new UsageError(`usage: ./loupe image build [--with-proxy] [--rebuild-base]`);
  const unknown = rest.filter((a) => a !== "--with-proxy" && a !== "--rebuild-base");
  if (unknown.length > 0) throw new UsageError(`unknown option ${unknown[0]} (./loupe image --help)`);
  const run = spawnSync("bash", [path.join(ROOT, "deploy/image/build.sh"), ...rest], { stdio: "inherit" });
  return run.status ?? 1;
}
