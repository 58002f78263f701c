/**
 * The analyses every node of an upload's tree gets beside the processors: fuzzy hashes, executable
 * facts, indicators. Each is a row saying what it reads — declared as data: a node's bytes, or the
 * walk's text — and each runs one way on a node (`onNode`), once per upload: the extractor and the
 * iocs route of one `/analyzer/all` share them as they share the walk.
 */
import { type FilesConfig, WARM_THREADS } from "../../config.ts";
import { ExecutableInspector, type ExecutableResult } from "../../executable/index.ts";
import { FuzzyHasher, type FuzzyResult } from "../../fuzzy/index.ts";
import { iocOptions } from "../../iocs/options.ts";
import { extractionParts } from "../../iocs/parts.ts";
import { IocScanner } from "../../iocs/scanner.ts";
import type { IocResult } from "../../iocs/types.ts";
import type { UploadedFile } from "../../upload.ts";
import { childFiles } from "./nodes.ts";
import { withNodePaths } from "./text-paths.ts";
import type { Walk } from "./walk.ts";

export type WalkDone = Walk & { ok: true };

/**
 * What an analysis reads. `bytes`: each node's bytes — the root's (the upload) from the start,
 * each child's once the walk took it out. `text`: the walk's text, once, which holds every node's
 * own text at its span, so what is found there is placed at its node.
 */
export type Needs = "bytes" | "text";

/** A node as an analysis sees it: its bytes on disk, and for `text`, the walk. */
export interface NodeInput {
  path: string;
  size: number;
  walk?: WalkDone;
}

export interface NodeAnalysis<T> {
  /** Its key among a node's results (and in the once-per-upload memory). */
  name: string;
  needs: Needs;
  /** Null: nothing to say about this node (not an executable). */
  run(input: NodeInput, signal: AbortSignal): Promise<T | null>;
}

/** One row's work on an upload: what its `needs` allow, each started as soon as it can be. */
export interface Scheduled<T> {
  /** The upload itself (rows that read bytes). */
  root?: Promise<T | null>;
  /** Every child taken out, by node id (rows that read bytes); a child that failed is left out. */
  children?: Promise<Map<number, T>>;
  /** The walk's text (rows that read text). */
  text?: Promise<T | null>;
}

export class NodeAnalyses {
  readonly fuzzy: NodeAnalysis<FuzzyResult>;
  readonly executable: NodeAnalysis<ExecutableResult>;
  readonly #config: FilesConfig;
  readonly #scanner: IocScanner;
  readonly #close: () => Promise<void>;
  #closed: Promise<void> | undefined;
  /** Work done per upload (its file) or per walk: forgotten with them. */
  readonly #done = new WeakMap<object, Map<string, Promise<unknown>>>();

  constructor(config: FilesConfig) {
    this.#config = config;
    const workers = {
      threads: config.extractWorkers,
      minThreads: WARM_THREADS,
      idleMs: config.workerIdleMs,
    };
    // Fuzzy hashes (FILES_FUZZY_*), executable structure (FILES_EXECUTABLE_*) and indicators (FILES_IOC_*), each in its own pool.
    const hasher = new FuzzyHasher({
      ...workers,
      timeoutMs: config.fuzzyTimeoutMs,
      maxBytes: config.fuzzyMaxBytes,
    });
    const inspector = new ExecutableInspector({
      ...workers,
      timeoutMs: config.executableTimeoutMs,
      maxBytes: config.executableMaxBytes,
      maxItems: config.executableMaxItems,
      maxOutputChars: config.executableMaxOutputChars,
      maxTableEntries: config.executableMaxTableEntries,
    });
    this.#scanner = new IocScanner({ ...workers, timeoutMs: config.iocTimeoutMs });
    this.fuzzy = { name: "fuzzy", needs: "bytes", run: (n, signal) => hasher.hash(n.path, n.size, signal) };
    this.executable = {
      name: "executable",
      needs: "bytes",
      run: (n, signal) => inspector.inspect(n.path, n.size, signal),
    };
    this.#close = async () => {
      await Promise.all([hasher.close(), inspector.close(), this.#scanner.close()]);
    };
  }

  /** Indicators in the walk's text, title and metadata, each content location with its node's path. */
  iocs(includePrivate = false): NodeAnalysis<IocResult> {
    return {
      name: includePrivate ? "iocs+private" : "iocs",
      needs: "text",
      run: async ({ walk }, signal) => {
        if (!walk) return null;
        const parts = extractionParts({ content: walk.content, title: walk.title, extra: walk.extra });
        const found = await this.#scanner.scan(parts, iocOptions(this.#config, includePrivate), signal);
        return withNodePaths(found, walk.spans, walk.nodes);
      },
    };
  }

  /** The one way an analysis runs on a node: once per `owner` (an upload or a walk) and `key`. */
  onNode<T>(
    a: NodeAnalysis<T>,
    owner: object,
    key: string,
    input: NodeInput,
    signal: AbortSignal,
  ): Promise<T | null> {
    const done = this.#done.get(owner) ?? new Map<string, Promise<unknown>>();
    this.#done.set(owner, done);
    const id = `${a.name}\0${key}`;
    let work = done.get(id) as Promise<T | null> | undefined;
    if (!work) {
      work = a.run(input, signal);
      work.catch(() => {}); // each caller awaits it
      done.set(id, work);
    }
    return work;
  }

  /** `a` on every child the walk took out; identical children (same sha256) once; a failure leaves the child out. */
  async onChildren<T>(a: NodeAnalysis<T>, walk: WalkDone, signal: AbortSignal): Promise<Map<number, T>> {
    const out = new Map<number, T>();
    await Promise.all(
      childFiles(walk.nodes).map(async (n) => {
        const key = n.hashes?.sha256 ?? `node ${n.id}`;
        const result = await this.onNode(a, walk, key, { path: n.file, size: n.size ?? 0 }, signal).catch(
          () => null,
        );
        if (result !== null) out.set(n.id, result);
      }),
    );
    return out;
  }

  /**
   * Each row on the upload as its `needs` allow: a row reading bytes starts on the upload now and
   * on the children once the walk is done; a row reading text starts when the walk is done.
   */
  schedule<T>(
    a: NodeAnalysis<T>,
    file: UploadedFile,
    walk: Promise<WalkDone>,
    signal: AbortSignal,
  ): Scheduled<T> {
    const quiet = <P>(p: Promise<P>) => {
      p.catch(() => {}); // awaited by the caller, or abandoned with a walk that failed
      return p;
    };
    if (a.needs === "text") {
      const text = walk.then((w) =>
        this.onNode(a, w, "text", { path: file.path, size: file.size, walk: w }, signal),
      );
      return { text: quiet(text) };
    }
    const root = this.onNode(a, file, "root", { path: file.path, size: file.size }, signal);
    return { root: quiet(root), children: quiet(walk.then((w) => this.onChildren(a, w, signal))) };
  }

  get iocThreads(): number {
    return this.#scanner.threads;
  }

  /** Stops the pools (once, however many processors hold them). */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }
}
