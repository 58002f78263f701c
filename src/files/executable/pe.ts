/** PE facts from YARA-X's `pe` module (as printed by the facts rules). */
import {
  bool,
  type Certificate,
  cutLists,
  type ExecutableFacts,
  emptyFacts,
  items,
  num,
  type Section,
  text,
  unixTime,
} from "./facts.ts";
import type { FactRecord } from "./lines.ts";
import { nameOf, PACKER_SECTIONS, PE_MACHINES, PE_RESOURCE_TYPES, PE_SUBSYSTEMS } from "./names.ts";

const IMAGE_SCN_MEM_WRITE = 0x80000000;
const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
const IMAGE_FILE_DLL = 0x2000;

function sections(facts: FactRecord): Section[] {
  return items(facts, "pe.section").map((s) => ({
    name: text(s, "name") ?? "",
    offset: num(s, "raw_offset"),
    size: num(s, "raw_size"),
    virtual_address: num(s, "virtual_address"),
    virtual_size: num(s, "virtual_size"),
    entropy: null,
    flags: num(s, "characteristics"),
  }));
}

/**
 * Imported functions by name, or `ord<N>` when imported by ordinal only (as pefile names them);
 * `maxItems` functions over all libraries (the rules cut each library's list, not their sum).
 */
function imports(facts: FactRecord, maxItems: number) {
  let left = maxItems;
  return items(facts, "pe.import").map((lib) => {
    const functions = items(lib, "function")
      .slice(0, Math.max(left, 0))
      .map((f) => text(f, "name") ?? `ord${num(f, "ordinal") ?? "?"}`);
    left -= functions.length;
    return { library: text(lib, "library"), functions };
  });
}

function certificates(facts: FactRecord): Certificate[] {
  return items(facts, "pe.signature").map((s) => ({
    subject: text(s, "subject"),
    issuer: text(s, "issuer"),
    serial: text(s, "serial"),
    not_before: unixTime(num(s, "not_before")),
    not_after: unixTime(num(s, "not_after")),
    verified: bool(s, "verified"),
  }));
}

function resources(facts: FactRecord) {
  return items(facts, "pe.resource").map((r) => ({
    type: text(r, "type_name") ?? nameOf(PE_RESOURCE_TYPES, num(r, "type")) ?? text(r, "type"),
    id: num(r, "id"),
    name: text(r, "name"),
    language: num(r, "language"),
    offset: num(r, "offset"),
    size: num(r, "size"),
  }));
}

function packerHints(facts: FactRecord, found: ExecutableFacts): string[] {
  const hints = found.sections.flatMap((s) => {
    const packer = PACKER_SECTIONS[s.name.toLowerCase()];
    return packer ? [`section "${s.name}" (${packer})`] : [];
  });
  const functions = num(facts, "pe.number_of_imported_functions") ?? 0;
  if (functions < 10 && (num(facts, "pe.number_of_imports") ?? 0) <= 3 && !bool(facts, "pe.is_dll"))
    hints.push(`few imports (${functions} functions)`);
  const rva = num(facts, "pe.entry_point_rva");
  const entry = found.sections.find(
    (s) =>
      rva !== null &&
      s.virtual_address !== null &&
      rva >= s.virtual_address &&
      rva < s.virtual_address + Math.max(s.virtual_size ?? 0, s.size ?? 0),
  );
  const flags = entry?.flags ?? 0;
  if (entry && flags & IMAGE_SCN_MEM_WRITE && flags & IMAGE_SCN_MEM_EXECUTE)
    hints.push(`entry point in a writable and executable section "${entry.name}"`);
  if (rva !== null && rva !== 0 && !entry && found.sections.length > 0)
    hints.push("entry point outside every section");
  return hints;
}

export function describePe(facts: FactRecord, maxItems: number): ExecutableFacts {
  const found = emptyFacts("pe");
  found.machine = num(facts, "pe.machine");
  found.architecture = nameOf(PE_MACHINES, found.machine);
  found.entry_point = num(facts, "pe.entry_point_rva");
  found.compile_time = unixTime(num(facts, "pe.timestamp"));
  found.sections = sections(facts);
  found.imports = imports(facts, maxItems);
  found.exports = items(facts, "pe.export").map(
    (e) => text(e, "name") ?? text(e, "forward") ?? `ord${num(e, "ordinal")}`,
  );
  const certs = certificates(facts);
  found.signatures = { present: certs.length > 0, valid: bool(facts, "pe.is_signed"), certificates: certs };
  found.resources = resources(facts);
  const overlaySize = num(facts, "pe.overlay_size") ?? 0;
  const overlayOffset = num(facts, "pe.overlay_offset");
  found.overlay =
    overlaySize > 0 && overlayOffset !== null ? { offset: overlayOffset, size: overlaySize } : null;
  found.counts = {
    sections: num(facts, "pe.number_of_sections") ?? 0,
    imports: num(facts, "pe.number_of_imports") ?? 0,
    imported_functions: num(facts, "pe.number_of_imported_functions") ?? 0,
    exports: num(facts, "pe.number_of_exports") ?? 0,
    resources: num(facts, "pe.number_of_resources") ?? 0,
    signatures: num(facts, "pe.number_of_signatures") ?? 0,
  };
  const listed = found.imports.reduce((n, lib) => n + lib.functions.length, 0);
  const { imported_functions, ...lists } = found.counts;
  found.truncated = cutLists(lists, maxItems);
  if (listed < (imported_functions ?? 0)) found.truncated.push("imported_functions");
  found.packer_hints = packerHints(facts, found);
  found.details = {
    subsystem: nameOf(PE_SUBSYSTEMS, num(facts, "pe.subsystem")),
    dll: ((num(facts, "pe.characteristics") ?? 0) & IMAGE_FILE_DLL) !== 0,
    is_64bit: bool(facts, "pe.is_64bit"),
    image_base: num(facts, "pe.image_base"),
    dll_name: text(facts, "pe.dll_name"),
    pdb_path: text(facts, "pe.pdb_path"),
    imphash: text(facts, "pe.imphash"),
  };
  return found;
}
