/**
 * The native YARA-X binding: the prebuilt N-API library of `@litko/yara-x` for linux-x64-gnu,
 * loaded directly (the package's own loader also wants macOS packages that were never
 * published, which breaks `npm ci`). An optional dependency: elsewhere the import fails, the
 * sandbox process cannot start and the WebAssembly build answers. Only the calls Loupe makes
 * are typed here.
 */
import { createRequire } from "node:module";

export const NATIVE_PACKAGE = "@litko/yara-x-linux-x64-gnu";

export interface NativeMatch {
  offset: number;
  length: number;
  identifier: string;
}

export interface NativeRuleMatch {
  ruleIdentifier: string;
  namespace: string;
  tags: string[];
  /** Per pattern in declaration order, each pattern's matches by offset. */
  matches: NativeMatch[];
}

export interface NativeRules {
  setMaxMatchesPerPattern(max: number): void;
  scan(data: Buffer): NativeRuleMatch[];
}

interface Binding {
  compile(source: string, options: { enableIncludes: boolean }): NativeRules;
}

export function loadBinding(name = NATIVE_PACKAGE): Binding {
  return createRequire(import.meta.url)(name) as Binding;
}
