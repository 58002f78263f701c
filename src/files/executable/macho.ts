/** Mach-O facts from YARA-X's `macho` module (as printed by the facts rules). */
import { bool, cutLists, type ExecutableFacts, emptyFacts, items, num, type Section, text } from "./facts.ts";
import type { FactRecord } from "./lines.ts";
import { MACHO_CPUS, MACHO_FILETYPES, nameOf } from "./names.ts";

function sections(facts: FactRecord): Section[] {
  return items(facts, "macho.segment").flatMap((segment) =>
    items(segment, "section").map((s) => ({
      name: `${text(segment, "name") ?? ""},${text(s, "name") ?? ""}`,
      // Zero-fill sections (__bss, __common) have no bytes in the file: offset 0.
      offset: num(s, "offset") || null,
      size: num(s, "size"),
      virtual_address: null,
      virtual_size: null,
      entropy: null,
      flags: null,
    })),
  );
}

const names = (facts: FactRecord, key: string) =>
  items(facts, key).flatMap((r) => (text(r, "name") === null ? [] : [text(r, "name") as string]));

/** A universal (fat) file: its architectures; the facts of each slice stay with YARA-X. */
function fatArchs(facts: FactRecord) {
  return items(facts, "macho.arch").map((a) => ({
    architecture: nameOf(MACHO_CPUS, num(a, "cputype")),
    cputype: num(a, "cputype"),
    offset: num(a, "offset"),
    size: num(a, "size"),
  }));
}

export function describeMacho(facts: FactRecord, maxItems: number): ExecutableFacts {
  const found = emptyFacts("macho");
  const slices = items(facts, "macho.file");
  const first = slices[0];
  found.machine = num(facts, "macho.cputype") ?? (first ? num(first, "cputype") : null);
  found.architecture = nameOf(MACHO_CPUS, found.machine);
  found.entry_point = num(facts, "macho.entry_point") ?? (first ? num(first, "entry_point") : null);
  found.sections = sections(facts);
  const imports = names(facts, "macho.import");
  found.imports = imports.length > 0 ? [{ library: null, functions: imports }] : [];
  found.exports = names(facts, "macho.export");
  const certificates = items(facts, "macho.certificate").map((c) => ({
    subject: text(c, "subject"),
    issuer: text(c, "issuer"),
    serial: null,
    not_before: null,
    not_after: null,
    verified: null,
  }));
  const signed = (num(facts, "macho.code_signature_size") ?? 0) > 0;
  found.signatures = { present: signed || certificates.length > 0, valid: null, certificates };
  found.counts = {
    segments: num(facts, "macho.number_of_segments") ?? 0,
    architectures: num(facts, "macho.nfat_arch") ?? 0,
  };
  found.truncated = cutLists(found.counts, maxItems);
  found.details = {
    filetype: nameOf(
      MACHO_FILETYPES,
      num(facts, "macho.filetype") ?? (first ? num(first, "filetype") : null),
    ),
    universal: num(facts, "macho.fat_magic") !== null && (num(facts, "macho.fat_magic") ?? 0) !== 0,
    architectures: fatArchs(facts),
    uuid: text(facts, "macho.uuid"),
    dylibs: names(facts, "macho.dylib"),
    entitlements: names(facts, "macho.entitlement"),
    self_signed: items(facts, "macho.certificate").some((c) => bool(c, "self_signed") === true),
  };
  return found;
}
