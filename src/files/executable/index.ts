/**
 * Executable facts (PE, ELF, Mach-O, LNK, DEX) for the extractor's `extra.executable`. The formats
 * are read by YARA-X's own modules, in the YARA worker threads (a fault retires the thread, the
 * scan has a time limit), section entropy in worker threads of its own; a file is looked at only
 * when its first bytes name one of these formats and it is within FILES_EXECUTABLE_MAX_BYTES.
 */
import { open, rm } from "node:fs/promises";
import { ProcessorFailure } from "../processors/processor.ts";
import { YaraPool } from "../processors/rulematch/pool.ts";
import { type Bounded, boundTables } from "./bounds.ts";
import { describeDex } from "./dex.ts";
import { describeElf } from "./elf.ts";
import { EntropyMeter } from "./entropy.ts";
import { type ExecutableFacts, type ExecutableFormat, highEntropyHints } from "./facts.ts";
import { readFactLines } from "./lines.ts";
import { describeLnk } from "./lnk.ts";
import { describeMacho } from "./macho.ts";
import { describePe } from "./pe.ts";
import { FACT_MODULES, factsRules } from "./rules.ts";

export interface ExecutableOptions {
  threads: number;
  minThreads: number;
  idleMs: number;
  timeoutMs: number;
  maxBytes: number;
  /** Items listed per list (sections, imports, symbols, resources…). */
  maxItems: number;
  /** Characters of module output read per file. */
  maxOutputChars: number;
  /** Entries of a table a hostile file can inflate (ELF symbols, Mach-O load commands) parsed at most. */
  maxTableEntries: number;
}

export type ExecutableResult =
  | ExecutableFacts
  | {
      format: ExecutableFormat;
      error: "too_large" | "timeout" | "engine_error" | "unreadable";
      detail: string;
      /** Table sizes read from the headers by Loupe itself (ELF symbols, Mach-O load commands). */
      counts?: Record<string, number>;
    };

const LNK_HEADER = Buffer.from([0x4c, 0, 0, 0, 0x01, 0x14, 0x02, 0]);
const MACHO_MAGICS = new Set([
  0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca, 0xcafebabf,
]);

/** A Java class shares the universal Mach-O magic: minor version 0 and a major of 45 (Java 1.1) and up. */
const isJavaClass = (head: Buffer) =>
  head.length >= 8 &&
  head.readUInt32BE(0) === 0xcafebabe &&
  head.readUInt16BE(4) === 0 &&
  head.readUInt16BE(6) >= 45;

/** The format the first bytes announce, or null for every other file. */
export function sniffFormat(head: Buffer): ExecutableFormat | null {
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return "pe";
  if (head.length >= 4 && head.readUInt32BE(0) === 0x7f454c46) return "elf";
  if (head.length >= 4 && MACHO_MAGICS.has(head.readUInt32BE(0)) && !isJavaClass(head)) return "macho";
  if (head.length >= 8 && head.subarray(0, 8).equals(LNK_HEADER)) return "lnk";
  if (head.length >= 4 && head.toString("latin1", 0, 4) === "dex\n") return "dex";
  return null;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function describe(
  format: ExecutableFormat,
  lines: string[],
  size: number,
  maxItems: number,
): ExecutableFacts | null {
  const facts = readFactLines(lines);
  // Nothing printed: YARA-X's module did not recognise the file.
  if (!Object.keys(facts).some((k) => k.startsWith(`${format}.`))) return null;
  if (format === "pe") return describePe(facts, maxItems);
  if (format === "elf") return describeElf(facts, size, maxItems);
  if (format === "macho") return describeMacho(facts, maxItems);
  if (format === "lnk") return describeLnk(facts);
  return describeDex(facts, maxItems);
}

/**
 * Tables cut before parsing: their declared length in `counts`, their name in `truncated`, and
 * the true size of a section the copy declared smaller.
 */
function reportCuts(facts: ExecutableFacts, bounded: Bounded): void {
  for (const [index, size] of Object.entries(bounded.sectionSizes)) {
    const section = facts.sections[Number(index)];
    if (section) section.size = size;
  }
  for (const [table, { declared }] of Object.entries(bounded.declared)) {
    facts.counts[table] = declared;
    if (!facts.truncated.includes(table)) facts.truncated.push(table);
  }
  if (Object.keys(bounded.declared).length > 0) facts.details.tables_cut = bounded.declared;
}

export class ExecutableInspector {
  private readonly pool: YaraPool;
  private readonly entropy: EntropyMeter;
  private readonly options: ExecutableOptions;
  private readonly rules: string;

  constructor(options: ExecutableOptions) {
    this.options = options;
    this.rules = factsRules(options.maxItems);
    this.pool = new YaraPool({
      minThreads: Math.min(options.minThreads, options.threads),
      maxThreads: options.threads,
      idleMs: options.idleMs,
      scanTimeoutMs: options.timeoutMs,
      compileTimeoutMs: options.timeoutMs,
    });
    this.entropy = new EntropyMeter(options);
  }

  /** The facts of an executable, an error entry, or null when the file does not start like one. */
  async inspect(path: string, size: number, signal: AbortSignal): Promise<ExecutableResult | null> {
    const format = sniffFormat(await readHead(path));
    if (format === null) return null;
    if (size > this.options.maxBytes) {
      const detail = `The file is over FILES_EXECUTABLE_MAX_BYTES (${this.options.maxBytes} bytes).`;
      return { format, error: "too_large", detail };
    }
    const bounded = await boundTables(path, format, this.options.maxTableEntries);
    const result = await this.scan(bounded.path, signal)
      .catch((err: unknown) => {
        if (err instanceof ProcessorFailure && (err.short === "timeout" || err.short === "engine_error")) {
          // What Loupe read from the headers itself still says how big the tables are.
          const counts = Object.keys(bounded.tables).length > 0 ? { counts: bounded.tables } : {};
          return { format, error: err.short, detail: err.message, ...counts } as const;
        }
        throw err;
      })
      .finally(() => (bounded.path === path ? undefined : rm(bounded.path, { force: true })));
    if ("error" in result) return result;
    const facts = describe(format, result.lines, size, this.options.maxItems);
    if (!facts) {
      const detail = `The file starts like ${format.toUpperCase()} but YARA-X's ${format} module cannot read it (malformed or truncated).`;
      return { format, error: "unreadable", detail };
    }
    if (result.cut) facts.truncated.push("output");
    reportCuts(facts, bounded);
    // Twice the file: every byte once, plus the overlap of ordinary layouts (segments and sections).
    await this.entropy.measure(
      path,
      facts.sections,
      2 * size,
      AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]),
    );
    facts.packer_hints.push(...highEntropyHints(facts.sections));
    return facts;
  }

  private async scan(path: string, signal: AbortSignal): Promise<{ lines: string[]; cut: boolean }> {
    const modules = new Set(["console", "math", ...FACT_MODULES.map((m) => m.module)]);
    const result = await this.pool.scan(
      {
        rules: this.rules,
        // Our own source: the checks only have to let it through.
        limits: {
          maxBytes: this.rules.length,
          maxDepth: 64,
          maxRules: 64,
          maxStrings: 0,
          maxPatternBytes: 0,
          maxAlternatives: 0,
          modules,
        },
        input: { path },
        cacheSize: 1,
        maxMatchesPerString: 1,
        plaintextMax: 0,
        consoleMax: this.options.maxOutputChars,
      },
      signal,
    );
    if (!result.ok)
      throw new ProcessorFailure("engine_error", `The executable facts rules failed: ${result.message}`);
    return { lines: result.console, cut: result.consoleTruncated };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.destroy(), this.entropy.close()]);
  }
}
