/** Dalvik executable (DEX) facts from YARA-X's `dex` module (as printed by the facts rules). */
import { cutLists, type ExecutableFacts, emptyFacts, items, num, text } from "./facts.ts";
import type { FactRecord } from "./lines.ts";

/** `Lcom/example/app/Main;` → `com.example.app`; a class in the default package has none. */
function packageOf(descriptor: string): string | null {
  if (!descriptor.startsWith("L") || !descriptor.endsWith(";")) return null;
  const path = descriptor.slice(1, -1);
  const cut = path.lastIndexOf("/");
  return cut > 0 ? path.slice(0, cut).replaceAll("/", ".") : null;
}

export function describeDex(facts: FactRecord, maxItems: number): ExecutableFacts {
  const found = emptyFacts("dex");
  const classes = items(facts, "dex.class").flatMap((c) =>
    text(c, "name") ? [text(c, "name") as string] : [],
  );
  const packages = [...new Set(classes.flatMap((c) => packageOf(c) ?? []))].sort();
  found.counts = {
    classes: num(facts, "dex.classes") ?? 0,
    strings: num(facts, "dex.strings") ?? 0,
    types: num(facts, "dex.types") ?? 0,
    methods: num(facts, "dex.methods") ?? 0,
    fields: num(facts, "dex.fields") ?? 0,
  };
  found.truncated = cutLists({ classes: num(facts, "dex.classes") ?? 0 }, maxItems);
  found.details = { version: num(facts, "dex.version"), packages, classes };
  return found;
}
