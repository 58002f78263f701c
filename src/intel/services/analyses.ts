/**
 * Files analyses kept by intel, for every door: an upload becomes an analysis (pending → done or
 * failed) sent to the files service in the background, or is answered from storage when the same
 * file was analysed with the same rules within INTEL_ANALYSIS_CACHE_SECONDS. The rules live here:
 * who sees an analysis (its owner, an administrator, everyone once shared), the cache key, the
 * default marking (RED/RED: a victim's file is private), what is kept of the file.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { HttpError, notFound } from "../../common/errors.ts";
import { cleanFileName } from "../../common/file-names.ts";
import type { Logger } from "../../common/logger.ts";
import { treeIndex, verdictLevel } from "../domain/analysis-result.ts";
import type { Marking } from "../model/markings.ts";
import {
  type AnalysisRow,
  failAnalysis,
  findCached,
  finishAnalysis,
  getAnalysis,
  hasThumbnail,
  insertAnalysis,
  listAnalyses,
  nodesOf,
  setShared,
  thumbnailOf,
} from "../store/analyses.ts";
import type { AnalysesTable } from "../store/analysis-schema.ts";
import { enrichAnalysis, enrichmentOf, type IndicatorVerdict } from "./analysis-enrich.ts";
import { analyseWithFiles, FilesCallError, probeFiles } from "./analysis-files.ts";
import { type AnalysisRunner, createAnalysisRunner } from "./analysis-runner.ts";
import { thumbnailFor } from "./analysis-thumbnail.ts";
import { type AnalysisView, analysisJson, analysisView } from "./analysis-views.ts";
import { recordAudit } from "./audit.ts";
import type { IntelServices } from "./index.ts";
import { checkedMarking } from "./requests.ts";

export type { AnalysisView, IndicatorVerdict };

/** Who asks: the API key's user. */
export interface Viewer {
  id: number;
  username: string;
  is_admin: number;
}

/** What the door received: the file (already at `path`) and the form's text fields. */
export interface Upload {
  id: string;
  path: string;
  name: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
  fields: { password?: string; rules?: string; tlp?: string; pap?: string };
}

export type Services = Pick<IntelServices, "store" | "config" | "connectors" | "requests">;

export interface Analyses {
  /** Where the door writes an upload's bytes, and the id its analysis will have. */
  newUpload(): Promise<{ id: string; path: string }>;
  /** Throws 503 (with how to set FILES_URL) when no files service answers. */
  checkFilesService(): Promise<void>;
  /** 202 and the pending analysis, or 200 and the whole analysis (JSON text) answered from the cache. */
  create(
    viewer: Viewer,
    upload: Upload,
  ): Promise<{ status: 202; analysis: AnalysisView } | { status: 200; json: string }>;
  /** The whole analysis as JSON text: its facts, its enriched indicators and the files service's answer. */
  get(viewer: Viewer, id: string): Promise<string>;
  /** The PNG kept with an analysis of an image; 404 no_thumbnail when there is none. */
  thumbnail(viewer: Viewer, id: string): Promise<Buffer>;
  enrich(viewer: Viewer, id: string): Promise<{ indicators: IndicatorVerdict[]; left_out: number }>;
  list(viewer: Viewer, query: ListQuery): Promise<{ count: number; page: number; results: AnalysisView[] }>;
  share(viewer: Viewer, id: string, shared: boolean): Promise<AnalysisView>;
  /** Resolves when no analysis is queued or running in this process. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ListQuery {
  q?: string;
  verdict?: string;
  user?: string;
  from?: string;
  to?: string;
  page: number;
  pageSize: number;
}

/** The cache key beside sha256: the rules' text and whether a password was given change the answer. */
export function rulesKey(fields: Upload["fields"]): string {
  return createHash("sha256")
    .update(`${fields.password ? "password" : "no password"}\n${fields.rules ?? ""}`)
    .digest("hex");
}

const canSeeAll = (v: Viewer) => v.is_admin === 1;

export function createAnalyses(services: Services, dataDir: string, log?: Logger): Analyses {
  const { db } = services.store;
  const { config } = services;
  const dir = path.join(dataDir, "analyses");
  const runner: AnalysisRunner = createAnalysisRunner({
    db,
    concurrency: config.analysisConcurrency,
    leaseMs: config.analysisLeaseSeconds * 1000,
    keepDays: config.analysisKeepFiles ? config.analysisKeepDays : null,
    run: (row, signal) => runAnalysis(services, row, signal, log),
    log,
  });

  const visibleRow = async (viewer: Viewer, id: string) => {
    const row = await getAnalysis(db, id);
    // Someone else's analysis answers as if it did not exist: its id tells nothing.
    if (!row || !(canSeeAll(viewer) || row.user_id === viewer.id || row.shared === 1))
      throw notFound("No analysis with this id.");
    return row;
  };

  return {
    newUpload: async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const id = randomUUID();
      return { id, path: path.join(dir, id) };
    },
    checkFilesService: () => probeFiles(config.filesUrl, config.analysisProbeTimeoutMs),
    create: async (viewer, upload) => {
      try {
        return await createAnalysis(services, runner, viewer, upload);
      } catch (err) {
        // Refused (a bad marking) or not recorded: the bytes go at once.
        if (!(await getAnalysis(db, upload.id))) await removeUpload(upload.path);
        throw err;
      }
    },
    get: async (viewer, id) => {
      const row = await visibleRow(viewer, id);
      return analysisJson(row, {
        indicators: await enrichmentOf(services, id),
        thumbnail: await hasThumbnail(db, row.cached_from ?? row.id),
      });
    },
    thumbnail: async (viewer, id) => {
      const row = await visibleRow(viewer, id);
      // An upload answered from the cache shows the thumbnail of the analysis that answered it.
      const png = await thumbnailOf(db, row.cached_from ?? row.id);
      if (!png)
        throw new HttpError(404, "no_thumbnail", "This analysis has no thumbnail: its file is not an image.");
      return png;
    },
    enrich: async (viewer, id) => enrichAnalysis(services, viewer.username, await visibleRow(viewer, id)),
    list: (viewer, query) => listVisible(services, viewer, query),
    share: async (viewer, id, shared) => {
      // Someone who cannot see it learns nothing (404) before being told who may share (403).
      const row = await visibleRow(viewer, id);
      if (!canSeeAll(viewer))
        throw new HttpError(403, "admin_only", "Only an administrator may share an analysis.");
      await setShared(db, id, shared);
      await recordAudit(
        services,
        viewer.username,
        "analysis.share",
        id,
        `${shared ? "shared" : "unshared"} ${row.name}`,
      );
      return analysisView({ ...row, shared: shared ? 1 : 0 });
    },
    idle: () => runner.idle(),
    close: () => runner.close(),
  };
}

function markingOf(kind: "tlp" | "pap", raw: string | undefined, fallback: Marking): Marking {
  return checkedMarking(kind, raw === "" ? undefined : raw) ?? fallback;
}

/** A new upload's row, pending, held by this process's runner. */
function pendingRow(services: Services, viewer: Viewer, upload: Upload, leaseUntil: string): AnalysesTable {
  const { config } = services;
  return {
    id: upload.id,
    user_id: viewer.id,
    name: cleanFileName(upload.name),
    sha256: upload.sha256,
    sha1: upload.sha1,
    md5: upload.md5,
    size: upload.size,
    rules_key: rulesKey(upload.fields),
    status: "pending",
    error: null,
    tlp: markingOf("tlp", upload.fields.tlp, config.analysisDefaultTlp),
    pap: markingOf("pap", upload.fields.pap, config.analysisDefaultPap),
    verdict: null,
    result: null,
    cached_from: null,
    shared: 0,
    created_at: new Date().toISOString(),
    finished_at: null,
    lease_until: leaseUntil,
    file_path: upload.path,
  };
}

async function createAnalysis(
  services: Services,
  runner: AnalysisRunner,
  viewer: Viewer,
  upload: Upload,
): Promise<{ status: 202; analysis: AnalysisView } | { status: 200; json: string }> {
  const { db } = services.store;
  const row = pendingRow(services, viewer, upload, runner.leaseUntil());
  const detail = `${row.name} (${row.sha256}, TLP:${row.tlp}, PAP:${row.pap})`;
  const done = await fromCache(services, row);
  if (done) {
    await rm(upload.path, { force: true });
    await recordAudit(services, viewer.username, "analysis.upload", row.id, `${detail}, from the cache`);
    const thumbnail = await hasThumbnail(db, done.cached_from ?? done.id);
    return {
      status: 200,
      json: analysisJson({ ...done, username: viewer.username }, { indicators: [], thumbnail }),
    };
  }
  await saveSecrets(upload.path, upload.fields);
  await insertAnalysis(db, row);
  await recordAudit(services, viewer.username, "analysis.upload", row.id, detail);
  runner.enqueue(row.id);
  return { status: 202, analysis: analysisView({ ...row, username: viewer.username }) };
}

/**
 * The upload answered by an earlier analysis of the same file with the same rules, within the
 * cache's time, recorded as an analysis of its own (this upload's name, owner and marking; the
 * earlier answer and age), or undefined. Its node index is the earlier one under this name.
 */
async function fromCache(services: Services, row: AnalysesTable): Promise<AnalysesTable | undefined> {
  const { db } = services.store;
  const seconds = services.config.analysisCacheSeconds;
  if (seconds === 0) return undefined;
  const since = new Date(Date.now() - seconds * 1000).toISOString();
  const source = await findCached(db, { sha256: row.sha256, rulesKey: row.rules_key }, since);
  if (!source) return undefined;
  const renamed = (p: string) =>
    p === source.name || p.startsWith(`${source.name} › `) ? row.name + p.slice(source.name.length) : p;
  const nodes = (await nodesOf(db, source.id)).map((n) => ({
    ...n,
    path: renamed(n.path),
    name: n.path === source.name ? row.name : n.name,
  }));
  const done: AnalysesTable = {
    ...row,
    status: "done",
    verdict: source.verdict,
    result: source.result,
    cached_from: source.id,
    finished_at: source.finished_at,
    file_path: null,
    lease_until: null,
  };
  await insertAnalysis(db, done, nodes);
  return done;
}

async function listVisible(services: Services, viewer: Viewer, query: ListQuery) {
  const filter = {
    q: query.q,
    verdict: query.verdict,
    username: query.user,
    from: query.from && `${query.from}T00:00:00.000Z`,
    // `to` is a day, included: up to the next day's start.
    to: query.to && new Date(Date.parse(`${query.to}T00:00:00.000Z`) + 86_400_000).toISOString(),
    ...(canSeeAll(viewer) ? {} : { visibleTo: viewer.id }),
  };
  const { rows, total } = await listAnalyses(services.store.db, filter, {
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  });
  return {
    count: total,
    page: query.page,
    results: rows.map(analysisView),
  };
}

/** Sends one pending analysis to the files service and records its answer or why it failed. */
async function runAnalysis(
  services: Services,
  row: AnalysisRow,
  signal: AbortSignal,
  log?: Logger,
): Promise<void> {
  const { db } = services.store;
  const { config } = services;
  const file = row.file_path;
  if (!file || config.filesUrl === null) {
    const detail = file ? "No files service is configured (FILES_URL=none)." : "The file is gone.";
    if (file) await removeUpload(file);
    await failAnalysis(db, row.id, JSON.stringify({ code: "not_analysed", detail }));
    return;
  }
  try {
    const { text, answer } = await askFiles(config, { url: config.filesUrl, signal }, row, file);
    const thumbnail = await thumbnailFor(config, { row, file, answer, signal }, log);
    const keep = config.analysisKeepFiles && row.size <= config.analysisKeepMaxBytes;
    // Gone before the analysis reads done: a done analysis whose file is not kept has none on disk.
    await rm(secretsPath(file), { force: true });
    if (!keep) await rm(file, { force: true });
    await finishAnalysis(db, row.id, {
      result: text,
      verdict: verdictLevel(answer),
      nodes: treeIndex(answer, row),
      filePath: keep ? file : null,
      thumbnail,
    });
  } catch (err) {
    // Closing: left pending with its file, for the next process (its lease runs out).
    if (signal.aborted) return;
    // Every failure ends the analysis with a reason: none is left pending to be tried forever.
    const known = err instanceof FilesCallError;
    const reason = { code: known ? err.code : "internal_error", detail: (err as Error).message };
    await removeUpload(file);
    await failAnalysis(db, row.id, JSON.stringify(reason));
  }
}

/** The files service's answer on the file, as text and parsed; FilesCallError otherwise. */
async function askFiles(
  config: Services["config"],
  to: { url: string; signal: AbortSignal },
  row: AnalysisRow,
  file: string,
) {
  const fields: Record<string, string> = {};
  const secrets = await readSecrets(file);
  if (secrets.password) fields.passwords = secrets.password;
  if (secrets.rules) fields.rules = secrets.rules;
  const text = await analyseWithFiles({
    ...to,
    filePath: file,
    name: row.name,
    fields,
    timeoutMs: config.analysisTimeoutMs,
    maxBytes: config.analysisResultMaxBytes,
  });
  try {
    return { text, answer: JSON.parse(text) as unknown };
  } catch {
    throw new FilesCallError("bad_answer", "the files service's answer is not JSON");
  }
}

/** The password and rules wait beside the file while it is pending (never in the database). */
export const secretsPath = (file: string) => `${file}.fields.json`;

async function readSecrets(file: string): Promise<{ password?: string; rules?: string }> {
  try {
    return JSON.parse(await readFile(secretsPath(file), "utf8")) as { password?: string; rules?: string };
  } catch {
    return {};
  }
}

async function saveSecrets(file: string, fields: Upload["fields"]): Promise<void> {
  const kept = { password: fields.password || undefined, rules: fields.rules || undefined };
  await writeFile(`${secretsPath(file)}.tmp`, JSON.stringify(kept), { mode: 0o600 });
  await rename(`${secretsPath(file)}.tmp`, secretsPath(file));
}

async function removeUpload(file: string): Promise<void> {
  await rm(file, { force: true });
  await rm(secretsPath(file), { force: true });
}
