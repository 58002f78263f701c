/**
 * A TypeScript client generated from an OpenAPI document (openapi-typescript-codegen, fetch
 * client), compiled strictly with a driver that calls it, and loaded: what a team generating a
 * client from Loupe's document would get. The driver (a .ts.txt beside the test: it imports
 * generated code, so it is not part of the project's build) exports `run`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const CODEGEN = path.join(
  path.dirname(require.resolve("openapi-typescript-codegen/package.json")),
  "bin/index.js",
);
const TSC = path.join(path.dirname(require.resolve("typescript/package.json")), "bin/tsc");

/** Generates the client into `dir`, type-checks the driver with it, and returns the driver's `run`. */
export async function generatedClientDriver<T extends (...args: never[]) => Promise<unknown>>(
  dir: string,
  spec: unknown,
  driver: URL,
): Promise<T> {
  await writeFile(path.join(dir, "openapi.json"), JSON.stringify(spec));
  await run(
    process.execPath,
    [CODEGEN, "-i", "openapi.json", "-o", "gen", "-c", "fetch", "--useUnionTypes"],
    {
      cwd: dir,
    },
  );
  await writeFile(path.join(dir, "driver.ts"), await readFile(driver, "utf8"));
  const compilerOptions = {
    strict: true,
    module: "commonjs",
    moduleResolution: "bundler",
    target: "es2022",
    lib: ["es2023", "dom"],
    types: [],
    outDir: "out",
  };
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["driver.ts"] }));
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir }).catch((err) => {
    assert.fail(`the generated client does not type-check:\n${err.stdout}${err.stderr}`);
  });
  await writeFile(path.join(dir, "out/package.json"), '{"type":"commonjs"}');
  return require(path.join(dir, "out/driver.js")).run as T;
}
