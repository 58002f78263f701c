/**
 * The YARA source that reads executable facts out of YARA-X's own modules (pe, elf, macho, lnk,
 * dex). The JavaScript build of YARA-X returns matches only, not module outputs, so each fact is
 * printed with the `console` module as one line `key=value`; list items open with `list=index`
 * and their fields follow (`lines.ts` reads them back). Every list is cut at `maxItems`. Section
 * entropy is not asked of YARA-X (`math.entropy` per section would read overlapping sections once
 * each): `entropy.ts` measures it afterwards, within a byte budget.
 *
 * A field that is undefined for this file (an ELF's `pe.timestamp`) makes its `console.log`
 * undefined; `or filesize >= 0` keeps the chain going (`or true` would be folded away by the
 * compiler, call included).
 */

/** A printed fact: its key and the YARA expression of its value (`@` is the list item, `i`, `j` index the lists). */
type Field = readonly [key: string, expr: string];

interface List {
  /** Key of the line opening each item; its fields are printed as `key.field`. */
  key: string;
  /** Expression of the list itself (`.len()` and `[index]` are added). */
  of: string;
  index: "i" | "j";
  fields: readonly Field[];
  lists?: readonly List[];
}

interface ModuleFacts {
  module: string;
  /** Condition under which the module's facts are printed at all (the cheap "is it mine"). */
  when: string;
  scalars: readonly Field[];
  lists: readonly List[];
}

const log = ([key, expr]: Field) => `(console.log("${key}=", ${expr}) or filesize >= 0)`;

function loop(list: List, parentKey: string, maxItems: number): string {
  const key = parentKey ? `${parentKey}.${list.key}` : list.key;
  const item = `${list.of}[${list.index}]`;
  const body = [
    `console.log("${key}=", ${list.index})`,
    ...list.fields.map(([field, expr]) => log([`${key}.${field}`, expr.replaceAll("@", item)])),
    ...(list.lists ?? []).map(
      (inner) =>
        `(${loop({ ...inner, of: inner.of.replaceAll("@", item) }, key, maxItems)} or filesize >= 0)`,
    ),
  ];
  return `for all ${list.index} in (0..math.min(${list.of}.len(), ${maxItems}) - 1): (${body.join(" and ")})`;
}

const PE: ModuleFacts = {
  module: "pe",
  when: "pe.is_pe",
  scalars: [
    ["pe.machine", "pe.machine"],
    ["pe.characteristics", "pe.characteristics"],
    ["pe.subsystem", "pe.subsystem"],
    ["pe.timestamp", "pe.timestamp"],
    ["pe.entry_point", "pe.entry_point"],
    ["pe.entry_point_rva", "pe.entry_point_raw"],
    ["pe.image_base", "pe.image_base"],
    ["pe.is_dll", "pe.is_dll()"],
    ["pe.is_64bit", "pe.is_64bit()"],
    ["pe.dll_name", "pe.dll_name"],
    ["pe.pdb_path", "pe.pdb_path"],
    ["pe.imphash", "pe.imphash()"],
    ["pe.is_signed", "pe.is_signed"],
    ["pe.overlay_offset", "pe.overlay.offset"],
    ["pe.overlay_size", "pe.overlay.size"],
    ["pe.number_of_sections", "pe.sections.len()"],
    ["pe.number_of_imported_functions", "pe.number_of_imported_functions"],
    ["pe.number_of_imports", "pe.import_details.len()"],
    ["pe.number_of_exports", "pe.export_details.len()"],
    ["pe.number_of_resources", "pe.resources.len()"],
    ["pe.number_of_signatures", "pe.signatures.len()"],
  ],
  lists: [
    {
      key: "pe.section",
      of: "pe.sections",
      index: "i",
      fields: [
        ["name", "@.name"],
        ["virtual_address", "@.virtual_address"],
        ["virtual_size", "@.virtual_size"],
        ["raw_offset", "@.raw_data_offset"],
        ["raw_size", "@.raw_data_size"],
        ["characteristics", "@.characteristics"],
      ],
    },
    {
      key: "pe.import",
      of: "pe.import_details",
      index: "i",
      fields: [["library", "@.library_name"]],
      lists: [
        {
          key: "function",
          of: "@.functions",
          index: "j",
          fields: [
            ["name", "@.name"],
            ["ordinal", "@.ordinal"],
          ],
        },
      ],
    },
    {
      key: "pe.export",
      of: "pe.export_details",
      index: "i",
      fields: [
        ["name", "@.name"],
        ["ordinal", "@.ordinal"],
        ["forward", "@.forward_name"],
      ],
    },
    {
      key: "pe.resource",
      of: "pe.resources",
      index: "i",
      fields: [
        ["type", "@.type"],
        ["type_name", "@.type_string"],
        ["id", "@.id"],
        ["name", "@.name_string"],
        ["language", "@.language"],
        ["offset", "@.offset"],
        ["size", "@.length"],
      ],
    },
    {
      key: "pe.signature",
      of: "pe.signatures",
      index: "i",
      fields: [
        ["subject", "@.subject"],
        ["issuer", "@.issuer"],
        ["serial", "@.serial"],
        ["thumbprint", "@.thumbprint"],
        ["not_before", "@.not_before"],
        ["not_after", "@.not_after"],
        ["digest_algorithm", "@.digest_alg"],
        ["verified", "@.verified"],
      ],
    },
  ],
};

const ELF_SYMBOL_FIELDS: readonly Field[] = [
  ["name", "@.name"],
  ["type", "@.type"],
  ["bind", "@.bind"],
  ["section", "@.shndx"],
];

const ELF: ModuleFacts = {
  module: "elf",
  when: "elf.type != 0 or elf.machine != 0",
  scalars: [
    ["elf.type", "elf.type"],
    ["elf.machine", "elf.machine"],
    ["elf.entry_point", "elf.entry_point"],
    ["elf.telfhash", "elf.telfhash()"],
    ["elf.sh_offset", "elf.sh_offset"],
    ["elf.sh_entry_size", "elf.sh_entry_size"],
    ["elf.number_of_sections", "elf.sections.len()"],
    ["elf.number_of_segments", "elf.segments.len()"],
    ["elf.symtab_entries", "elf.symtab.len()"],
    ["elf.dynsym_entries", "elf.dynsym.len()"],
  ],
  lists: [
    {
      key: "elf.section",
      of: "elf.sections",
      index: "i",
      fields: [
        ["name", "@.name"],
        ["type", "@.type"],
        ["flags", "@.flags"],
        ["address", "@.address"],
        ["offset", "@.offset"],
        ["size", "@.size"],
      ],
    },
    {
      key: "elf.segment",
      of: "elf.segments",
      index: "i",
      fields: [
        ["type", "@.type"],
        ["flags", "@.flags"],
        ["offset", "@.offset"],
        ["file_size", "@.file_size"],
      ],
    },
    { key: "elf.dynsym", of: "elf.dynsym", index: "i", fields: ELF_SYMBOL_FIELDS },
  ],
};

const MACHO: ModuleFacts = {
  module: "macho",
  when: "macho.magic != 0 or macho.fat_magic != 0",
  scalars: [
    ["macho.magic", "macho.magic"],
    ["macho.fat_magic", "macho.fat_magic"],
    ["macho.nfat_arch", "macho.nfat_arch"],
    ["macho.cputype", "macho.cputype"],
    ["macho.cpusubtype", "macho.cpusubtype"],
    ["macho.filetype", "macho.filetype"],
    ["macho.flags", "macho.flags"],
    ["macho.entry_point", "macho.entry_point"],
    ["macho.uuid", "macho.uuid"],
    ["macho.code_signature_size", "macho.code_signature_data.datasize"],
    ["macho.number_of_segments", "macho.segments.len()"],
  ],
  lists: [
    {
      key: "macho.segment",
      of: "macho.segments",
      index: "i",
      // A segment's `filesize` cannot be named (`filesize` is a keyword): sizes come per section.
      fields: [
        ["name", "@.segname"],
        ["offset", "@.fileoff"],
      ],
      lists: [
        {
          key: "section",
          of: "@.sections",
          index: "j",
          fields: [
            ["name", "@.sectname"],
            ["offset", "@.offset"],
            ["size", "@.size"],
          ],
        },
      ],
    },
    { key: "macho.dylib", of: "macho.dylibs", index: "i", fields: [["name", "@.name"]] },
    { key: "macho.import", of: "macho.imports", index: "i", fields: [["name", "@"]] },
    { key: "macho.export", of: "macho.exports", index: "i", fields: [["name", "@"]] },
    { key: "macho.entitlement", of: "macho.entitlements", index: "i", fields: [["name", "@"]] },
    {
      key: "macho.certificate",
      of: "macho.certificates",
      index: "i",
      fields: [
        ["subject", "@.subject"],
        ["issuer", "@.issuer"],
        ["self_signed", "@.is_self_signed"],
      ],
    },
    {
      key: "macho.arch",
      of: "macho.fat_arch",
      index: "i",
      fields: [
        ["cputype", "@.cputype"],
        ["offset", "@.offset"],
        ["size", "@.size"],
      ],
    },
    {
      key: "macho.file",
      of: "macho.file",
      index: "i",
      fields: [
        ["cputype", "@.cputype"],
        ["filetype", "@.filetype"],
        ["entry_point", "@.entry_point"],
      ],
    },
  ],
};

const LNK: ModuleFacts = {
  module: "lnk",
  when: "lnk.is_lnk",
  scalars: [
    ["lnk.name", "lnk.name"],
    ["lnk.creation_time", "lnk.creation_time"],
    ["lnk.access_time", "lnk.access_time"],
    ["lnk.write_time", "lnk.write_time"],
    ["lnk.file_size", "lnk.file_size"],
    ["lnk.file_attributes", "lnk.file_attributes"],
    ["lnk.icon_location", "lnk.icon_location"],
    ["lnk.show_command", "lnk.show_command"],
    ["lnk.drive_type", "lnk.drive_type"],
    ["lnk.drive_serial_number", "lnk.drive_serial_number"],
    ["lnk.volume_label", "lnk.volume_label"],
    ["lnk.local_base_path", "lnk.local_base_path"],
    ["lnk.common_path_suffix", "lnk.common_path_suffix"],
    ["lnk.relative_path", "lnk.relative_path"],
    ["lnk.working_dir", "lnk.working_dir"],
    ["lnk.arguments", "lnk.cmd_line_args"],
    ["lnk.machine_id", "lnk.tracker_data.machine_id"],
    ["lnk.overlay_offset", "lnk.overlay_offset"],
    ["lnk.overlay_size", "lnk.overlay_size"],
  ],
  lists: [
    {
      key: "lnk.item",
      of: "lnk.target_id_list",
      index: "i",
      fields: [
        ["name", "@.file_entry_name"],
        ["volume", "@.volume_name"],
        ["network", "@.network_location"],
      ],
    },
  ],
};

const DEX: ModuleFacts = {
  module: "dex",
  when: "dex.is_dex",
  scalars: [
    ["dex.version", "dex.header.version"],
    // `dex.strings` cannot be named (`strings` is a keyword): string_ids_size from the header.
    ["dex.strings", "uint32(0x38)"],
    ["dex.types", "dex.types.len()"],
    ["dex.methods", "dex.methods.len()"],
    ["dex.fields", "dex.fields.len()"],
    ["dex.classes", "dex.class_defs.len()"],
  ],
  lists: [{ key: "dex.class", of: "dex.class_defs", index: "i", fields: [["name", "@.class"]] }],
};

export const FACT_MODULES = [PE, ELF, MACHO, LNK, DEX];

/** The rule set printing every module's facts, lists cut at `maxItems`. */
export function factsRules(maxItems: number): string {
  const imports = ["console", "math", ...FACT_MODULES.map((m) => m.module)].map((m) => `import "${m}"`);
  const rules = FACT_MODULES.flatMap((m) => [
    `rule ${m.module}_facts { condition: (${m.when}) and ${m.scalars.map(log).join(" and ")} }`,
    ...m.lists.map(
      (list, n) => `rule ${m.module}_list_${n} { condition: (${m.when}) and ${loop(list, "", maxItems)} }`,
    ),
  ]);
  return [...imports, ...rules].join("\n");
}
