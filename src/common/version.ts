/**
 * Loupe's version, read once from package.json at load: the one place it is written, so the
 * OpenAPI documents, the health answers and the panel's footer cannot disagree.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./config.ts";

/** The version in package.json. */
export const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
