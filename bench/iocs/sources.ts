/**
 * The public sources of the real-report corpus: where each keeps its prose, its machine-readable
 * lists and its licence. A report is a top-level directory of the snapshot; its prose files are
 * joined, its lists merged (which indicators of the lists the prose really names is decided when scoring).
 */
import path from "node:path";
import { fromLine, fromMisp, fromStix, type Listed } from "./listed.ts";
import type { Snapshot } from "./snapshot.ts";

export interface Report {
  id: string;
  /** The prose files joined, in path order, with their extension (the extractor reads them as text). */
  prose: string;
  ext: string;
  listed: Listed[];
  /** The list files the indicators came from. */
  from: string[];
}

export interface Source {
  name: string;
  repository: string;
  licence: string;
  /** The snapshot file that holds or states the licence (copied beside the corpus). */
  licenceFile: string;
  isProse(file: string): boolean;
  /** Indicators of one list file, or null when the file is not a list. */
  list(file: string, text: string): Listed[] | null;
}

const lines = (text: string) =>
  text.split(/\r?\n/).flatMap((l) => {
    const one = fromLine(l);
    return one ? [one] : [];
  });
const base = (file: string) => path.posix.basename(file).toLowerCase();

export const SOURCES: Record<string, Source> = {
  eset: {
    name: "eset",
    repository: "eset/malware-ioc",
    licence: "BSD-2-Clause (LICENSE; the README calls it the permissive BSD two-clause licence)",
    licenceFile: "LICENSE",
    isProse: (f) => f.endsWith(".adoc") && f.includes("/"),
    list: (f, text) => {
      if (/^samples\.(md5|sha1|sha256)$/.test(base(f))) return lines(text);
      if (f.endsWith(".json") && /misp/i.test(f)) return fromMisp(text);
      return null;
    },
  },
  avast: {
    name: "avast",
    repository: "avast/ioc",
    licence: "Detection Rule License (DRL) 1.1 (stated in README.md)",
    licenceFile: "README.md",
    isProse: (f) => base(f) === "readme.md" && f.includes("/"),
    list: (f, text) => (/^(samples\.(md5|sha1|sha256)|network\.txt)$/.test(base(f)) ? lines(text) : null),
  },
  amnesty: {
    name: "amnesty",
    repository: "AmnestyTech/investigations",
    licence: "CC-BY (stated in README.md)",
    licenceFile: "README.md",
    isProse: (f) => base(f) === "readme.md" && f.includes("/"),
    list: (f, text) => {
      if (f.endsWith(".stix2")) return fromStix(text);
      const lists = /^(?:v\d_(?:validation_)?)?(domains|ips|emails|sha256|sha1|md5|samples)\.(txt|csv)$/;
      return lists.test(base(f)) ? lines(text) : null;
    },
  },
};

/** The reports of a snapshot: one per top-level directory holding prose and at least one list. */
export function reportsOf(source: Source, snapshot: Snapshot): Report[] {
  const groups = new Map<string, string[]>();
  for (const f of snapshot.files) {
    const top = f.split("/")[0] ?? f;
    if (f.includes("/")) groups.set(top, [...(groups.get(top) ?? []), f]);
  }
  const reports: Report[] = [];
  for (const [id, files] of groups) {
    const prose = files.filter(source.isProse).flatMap((f) => snapshot.read(f) ?? []);
    const listed: Listed[] = [];
    const from: string[] = [];
    for (const f of files.filter((f) => !source.isProse(f))) {
      const text = /\.(json|txt|csv|stix2|md5|sha1|sha256)$/.test(f) ? snapshot.read(f) : null;
      const found = text === null ? null : safeList(source, f, text);
      if (found?.length) {
        listed.push(...found);
        from.push(f);
      }
    }
    const ext = files.find(source.isProse)?.split(".").pop() ?? "txt";
    if (prose.length && listed.length) reports.push({ id, prose: prose.join("\n\n"), ext, listed, from });
  }
  return reports;
}

function safeList(source: Source, file: string, text: string): Listed[] | null {
  try {
    return source.list(file, text);
  } catch (err) {
    console.warn(`  ${file}: not read (${(err as Error).message.slice(0, 80)})`);
    return null;
  }
}
