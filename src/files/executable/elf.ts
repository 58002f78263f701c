/** ELF facts from YARA-X's `elf` module (as printed by the facts rules). */
import { cutLists, type ExecutableFacts, emptyFacts, items, num, type Section, text } from "./facts.ts";
import type { FactRecord } from "./lines.ts";
import { ELF_MACHINES, ELF_TYPES, nameOf } from "./names.ts";

const SHT_NOBITS = 8;
const STT_OBJECT = 1;
const STT_FUNC = 2;
const STB_LOCAL = 0;
const PT_LOAD = 1;

function sections(facts: FactRecord): Section[] {
  // SHT_NOBITS (.bss) takes memory, not bytes of the file: no offset.
  return items(facts, "elf.section").map((s) => ({
    name: text(s, "name") ?? "",
    offset: num(s, "type") === SHT_NOBITS ? null : num(s, "offset"),
    size: num(s, "size"),
    virtual_address: num(s, "address"),
    virtual_size: null,
    entropy: null,
    flags: num(s, "flags"),
  }));
}

/** Segments as sections when the file has no section headers (stripped of them, or packed). */
function loadSegments(facts: FactRecord): Section[] {
  return items(facts, "elf.segment")
    .filter((s) => num(s, "type") === PT_LOAD)
    .map((s, n) => ({
      name: `LOAD${n}`,
      offset: num(s, "offset"),
      size: num(s, "file_size"),
      virtual_address: null,
      virtual_size: null,
      entropy: null,
      flags: num(s, "flags"),
    }));
}

/** Undefined dynamic symbols are what the file imports; defined global ones what it exports. */
function symbols(facts: FactRecord): { imports: string[]; exports: string[] } {
  const imports: string[] = [];
  const exports: string[] = [];
  for (const sym of items(facts, "elf.dynsym")) {
    const name = text(sym, "name");
    const type = num(sym, "type");
    if (!name || (type !== STT_FUNC && type !== STT_OBJECT)) continue;
    if (num(sym, "section") === 0) imports.push(name);
    else if (num(sym, "bind") !== STB_LOCAL) exports.push(name);
  }
  return { imports, exports };
}

/** Bytes past the last thing the headers point at; null when a list was cut (the end is unknown). */
function overlay(facts: FactRecord, fileSize: number, truncated: string[]): ExecutableFacts["overlay"] {
  // Cut lists, or no header table read at all (refused as malformed): the end is unknown.
  const read = items(facts, "elf.section").length + items(facts, "elf.segment").length;
  if (truncated.length > 0 || read === 0) return null;
  const shEnd =
    (num(facts, "elf.sh_offset") ?? 0) +
    (num(facts, "elf.number_of_sections") ?? 0) * (num(facts, "elf.sh_entry_size") ?? 0);
  let end = shEnd;
  for (const s of items(facts, "elf.section"))
    if (num(s, "type") !== SHT_NOBITS) end = Math.max(end, (num(s, "offset") ?? 0) + (num(s, "size") ?? 0));
  for (const s of items(facts, "elf.segment"))
    end = Math.max(end, (num(s, "offset") ?? 0) + (num(s, "file_size") ?? 0));
  return end > 0 && fileSize > end ? { offset: end, size: fileSize - end } : null;
}

export function describeElf(facts: FactRecord, fileSize: number, maxItems: number): ExecutableFacts {
  const found = emptyFacts("elf");
  found.machine = num(facts, "elf.machine");
  found.architecture = nameOf(ELF_MACHINES, found.machine);
  found.entry_point = num(facts, "elf.entry_point");
  const headers = sections(facts);
  found.sections = headers.length > 0 ? headers : loadSegments(facts);
  const { imports, exports } = symbols(facts);
  found.imports = imports.length > 0 ? [{ library: null, functions: imports }] : [];
  found.exports = exports;
  found.counts = {
    sections: num(facts, "elf.number_of_sections") ?? 0,
    segments: num(facts, "elf.number_of_segments") ?? 0,
    dynamic_symbols: num(facts, "elf.dynsym_entries") ?? 0,
    symbols: num(facts, "elf.symtab_entries") ?? 0,
  };
  const { symbols: _notListed, ...lists } = found.counts;
  found.truncated = cutLists(lists, maxItems);
  found.overlay = overlay(facts, fileSize, found.truncated);
  if (headers.length === 0 && (found.counts.segments ?? 0) > 0) found.packer_hints.push("no section headers");
  found.details = {
    type: nameOf(ELF_TYPES, num(facts, "elf.type")),
    stripped: found.counts.symbols === 0,
    telfhash: text(facts, "elf.telfhash"),
  };
  return found;
}
