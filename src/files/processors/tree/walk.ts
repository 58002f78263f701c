/**
 * The one walker: an upload is extracted once, in a sandbox process, into its text and its tree of
 * children (files in the upload's private folder). Every processor that needs the tree asks here;
 * the walk is shared by the processors of one request (`/analyzer/all` extracts once), keyed by
 * the upload object and the passwords, and forgotten with the upload.
 */
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FilesConfig } from "../../config.ts";
import { findPrlimit } from "../../sandbox/memory.ts";
import { poolRecoveries, poolState, SandboxFailure, SandboxPool } from "../../sandbox/pool.ts";
import { ClientShare } from "../../sandbox/share.ts";
import { Scratch } from "../../scratch.ts";
import type { InMemoryFile, UploadedFile } from "../../upload.ts";
import { passwordsField } from "../extractor/passwords-field.ts";
import type { TreeNode } from "../extractor/tree.ts";
import type { ExtractResult, ExtractTask } from "../extractor/worker.ts";
import type { EngineStatus, ProcessorContext } from "../processor.ts";
import { ProcessorFailure } from "../processor.ts";
import { mayHoldChildren } from "./containers.ts";

export type Walk = ExtractResult;

/** Who walks: the request's abort, and its client (remote address) for the fair share of processes. */
export type WalkContext = Pick<ProcessorContext, "signal" | "client">;

/** Extraction processes kept started while idle: the next upload does not wait for one to boot. */
const WARM_EXTRACTORS = 1;

export class Walker {
  readonly #pool: SandboxPool<ExtractTask, ExtractResult>;
  /** One client's costly work (password runs) holds at most its share of the processes. */
  readonly #share: ClientShare;
  readonly #config: FilesConfig;
  readonly #limits: ExtractTask["limits"];
  readonly #walks = new WeakMap<UploadedFile, Map<string, Promise<Walk>>>();

  constructor(config: FilesConfig) {
    this.#config = config;
    this.#limits = extractLimits(config);
    this.#pool = new SandboxPool<ExtractTask, ExtractResult>({
      label: "Extraction",
      module: new URL("../extractor/worker.ts", import.meta.url),
      memoryMb: config.extractMemoryMb,
      timeoutMs: config.extractTimeoutMs,
      prlimit: findPrlimit(),
      size: config.extractWorkers,
      minIdle: WARM_EXTRACTORS,
      idleMs: config.workerIdleMs,
    });
    this.#share = new ClientShare(
      Math.max(1, Math.floor((config.extractWorkers * config.extractClientShare) / 100)),
      config.extractWorkers,
      config.extractTimeoutMs * HEAVY_SHARE,
    );
  }

  /** The request's passwords (the `passwords` field; 400 when too many), then the defaults. */
  passwords(fields: Record<string, string>): string[] {
    return [
      ...passwordsField(fields.passwords, this.#config.archiveMaxPasswords),
      ...this.#config.archivePasswords,
    ];
  }

  /**
   * The upload's walk: started by the first processor that asks, shared by the others. A walk
   * that cannot finish (time, memory, a crash) rejects with a ProcessorFailure.
   */
  walk(file: UploadedFile, passwords: string[], ctx: WalkContext): Promise<Walk> {
    const key = passwords.join("\n");
    const byKey = this.#walks.get(file) ?? new Map<string, Promise<Walk>>();
    this.#walks.set(file, byKey);
    let walk = byKey.get(key);
    if (!walk) {
      walk = this.#run(file, passwords, ctx);
      walk.catch(() => {}); // each caller awaits it
      byKey.set(key, walk);
    }
    return walk;
  }

  /**
   * The nodes of an upload for a processor that reads only its children (antivirus, YARA), given
   * to `work`: a file whose magic bytes say it holds none (text, an image, an executable) is not
   * walked; an upload kept in memory is written to a private folder first, removed after `work`.
   */
  async withNodes<T>(
    file: UploadedFile | InMemoryFile,
    fields: Record<string, string>,
    ctx: WalkContext,
    work: (nodes: TreeNode[]) => Promise<T>,
  ): Promise<T> {
    const passwords = this.passwords(fields);
    const head = file.bytes ? file.bytes.subarray(0, HEAD_BYTES) : await readHead(file.path);
    if (!mayHoldChildren(head)) return work(rootOnly(file));
    if (!file.bytes) return work((await this.walk(file, passwords, ctx)).nodes);
    const dir = await mkdtemp(path.join(this.#config.tmpDir, `${process.pid}-memory-`));
    const upload = path.join(dir, "upload");
    const scratch = new Scratch(`${upload}.children`);
    try {
      const onDisk: UploadedFile = { ...file, bytes: undefined, path: upload, scratch };
      await writeFile(onDisk.path, file.bytes, { mode: 0o600 });
      return await work((await this.walk(onDisk, passwords, ctx)).nodes);
    } finally {
      await scratch.remove();
      await rm(dir, { recursive: true, force: true });
    }
  }

  async #run(file: UploadedFile, passwords: string[], ctx: WalkContext): Promise<Walk> {
    const timeoutMs = this.#config.extractTimeoutMs;
    // Waiting for a turn and a free process counts against the same time limit as the work.
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([deadline, ctx.signal]);
    let leave: (() => void) | undefined;
    try {
      if (ctx.client !== undefined) leave = await this.#share.enter(ctx.client, signal);
      // Made here, never by the extraction process: once the upload is removed it stays removed.
      const childrenDir = await file.scratch?.open();
      return await this.#pool.run(
        {
          path: file.path,
          filename: file.filename,
          limits: { ...this.#limits, passwords },
          deadline: Date.now() + timeoutMs,
          ...(childrenDir ? { childrenDir } : {}),
        },
        signal,
      );
    } catch (err) {
      throw asFailure(err, deadline, timeoutMs);
    } finally {
      leave?.();
    }
  }

  engine(): EngineStatus {
    return {
      ready: this.#pool.startFailure === null,
      detail: `${poolDetail(this.#pool, this.#config.extractWorkers)}; ${shareDetail(this.#share)}`,
    };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/**
 * A client that used this share of FILES_EXTRACT_TIMEOUT_MS of process time lately (halving every
 * minute) is heavy: heavy clients together leave one process to the others.
 */
const HEAVY_SHARE = 0.25;

/** Enough of a file to know whether it can hold children (an e-mail's header block included). */
const HEAD_BYTES = 256 * 1024;

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function rootOnly(file: { filename: string; size: number }): TreeNode[] {
  return [
    {
      id: 0,
      parent: null,
      path: [file.filename],
      name: file.filename,
      size: file.size,
      type: null,
      status: "analysed",
    },
  ];
}

/** What the sandboxed worker needs from the settings: its limits, OCR and Tika. */
function extractLimits(config: FilesConfig): ExtractTask["limits"] {
  return {
    maxChars: config.extractMaxChars,
    maxDepth: config.extractMaxDepth,
    maxArchiveBytes: config.extractMaxArchiveBytes,
    maxArchiveEntries: config.extractMaxArchiveEntries,
    memoryMb: config.extractMemoryMb,
    maxPasswordTries: config.archiveMaxPasswordTries,
    maxKeyPower: config.archiveMaxKeyPower,
    maxKeyRounds: config.archiveMaxKeyRounds,
    // The worker sets the OCR temp folder: the upload's own private folder.
    ...(config.ocr
      ? {
          ocr: {
            languages: config.ocrLanguages,
            timeoutMs: config.ocrTimeoutMs,
            maxPages: config.ocrMaxPages,
            tmpDir: "",
          },
        }
      : {}),
    ...(config.tikaUrl ? { tika: { url: config.tikaUrl, timeoutMs: config.tikaTimeoutMs } } : {}),
  };
}

function asFailure(err: unknown, deadline: AbortSignal, timeoutMs: number): ProcessorFailure {
  if (err instanceof SandboxFailure && err.kind !== "aborted")
    return new ProcessorFailure(err.kind, err.message);
  if (deadline.aborted)
    return new ProcessorFailure(
      "timeout",
      `Extraction did not finish within ${timeoutMs} ms and was stopped.`,
    );
  const message = err instanceof Error ? err.message : String(err);
  return new ProcessorFailure("engine_error", `Extraction failed: ${message}`);
}

/**
 * Processes started and what they do now, the last one lost (a replacement starts on the next
 * extraction), and what the watchdog replaced.
 */
function poolDetail(pool: SandboxPool<ExtractTask, ExtractResult>, size: number): string {
  if (pool.startFailure) return `extraction processes cannot start: ${pool.startFailure}`;
  const health = pool.health();
  const started = `${pool.started} of ${size} extraction processes started${poolState(health)}`;
  const last = pool.lastFailure;
  return (last ? `${started}; last stopped at ${last.at} (${last.kind})` : started) + poolRecoveries(health);
}

/** The turns: how many extractions run per client, how many run now, how many waited for theirs. */
function shareDetail(share: ClientShare): string {
  return (
    `${share.perClient} per client (remote address, FILES_EXTRACT_CLIENT_SHARE), the least busy client first; ` +
    `${share.running} running, ${share.held} extractions waited for their turn`
  );
}
