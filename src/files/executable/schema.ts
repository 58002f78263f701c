/** The OpenAPI schema of `extra.executable` (docs/extraction.md, "Executables"). */
import { Type } from "typebox";

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const nullableInt = nullable(Type.Integer());
const nullableString = nullable(Type.String());
const FORMATS = ["pe", "elf", "macho", "lnk", "dex"].map((f) => Type.Literal(f));

const section = Type.Object({
  name: Type.String(),
  offset: nullableInt,
  size: nullableInt,
  virtual_address: nullableInt,
  virtual_size: nullableInt,
  entropy: nullable(Type.Number({ description: "Bits per byte of the bytes in the file, 0–8." })),
  flags: nullableInt,
});

const certificate = Type.Object({
  subject: nullableString,
  issuer: nullableString,
  serial: nullableString,
  not_before: nullableString,
  not_after: nullableString,
  verified: nullable(Type.Boolean()),
});

export const executableFacts = Type.Object(
  {
    format: Type.Union(FORMATS),
    architecture: nullable(Type.String({ description: "x86, x86-64, arm, arm64, mips, powerpc…" })),
    machine: nullable(Type.Integer({ description: "The format's machine or CPU type number." })),
    entry_point: nullableInt,
    compile_time: nullable(Type.String({ format: "date-time", description: "PE TimeDateStamp." })),
    sections: Type.Array(section),
    imports: Type.Array(
      Type.Object({
        library: nullableString,
        functions: Type.Array(Type.String(), { description: "Names, or ord<N> when imported by ordinal." }),
      }),
    ),
    exports: Type.Array(Type.String()),
    signatures: nullable(
      Type.Object({
        present: Type.Boolean(),
        valid: nullable(Type.Boolean({ description: "PE: an Authenticode signature verified." })),
        certificates: Type.Array(certificate),
      }),
    ),
    resources: Type.Array(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()])),
    ),
    overlay: nullable(Type.Object({ offset: Type.Integer(), size: Type.Integer() })),
    packer_hints: Type.Array(Type.String()),
    truncated: Type.Array(Type.String(), {
      description:
        "Lists cut at FILES_EXECUTABLE_MAX_ITEMS; tables cut at FILES_EXECUTABLE_MAX_TABLE_ENTRIES before parsing (`symbols`, `dynamic_symbols`, `load_commands`); `output`.",
    }),
    counts: Type.Record(Type.String(), Type.Integer(), { description: "Full length of each list." }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: "The format's own facts." }),
  },
  { description: "Structure of a PE, ELF, Mach-O, LNK or DEX file (read by YARA-X's modules)." },
);

export const executableError = Type.Object({
  format: Type.Union(FORMATS),
  error: Type.Union([
    Type.Literal("too_large"),
    Type.Literal("timeout"),
    Type.Literal("engine_error"),
    Type.Literal("unreadable"),
  ]),
  detail: Type.String(),
  counts: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description:
        "Table sizes Loupe read from the headers itself (`symbols`, `dynamic_symbols`, `load_commands`).",
    }),
  ),
});

export const executableSchema = Type.Union([executableFacts, executableError]);
