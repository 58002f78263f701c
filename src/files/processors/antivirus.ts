/**
 * `POST /analyzer/antivirus`: the upload scanned by clamd, then every child the walk takes out of
 * it (antivirus-tree.ts); one verdict over the tree, never a 5xx. A clamd that reads Loupe's files
 * (the one Loupe runs) scans the temp file by its path once the upload is in; any other is sent the
 * bytes (INSTREAM) while they arrive, beside the temp file (kept for the sha256 of an infected
 * file). Other routes (`/analyzer/all`) scan the saved file.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { Type } from "typebox";
import {
  type ClamdAddress,
  ClamdError,
  describeAddress,
  InstreamSession,
  ping,
  type ScanVerdict,
  scanFile,
  version,
} from "../clamd/client.ts";
import type { FilesConfig } from "../config.ts";
import type { UploadedFile } from "../upload.ts";
import { deepest, scanTree, type TreeScan } from "./antivirus-tree.ts";
import { passwordsFieldSchema } from "./extractor/passwords-field.ts";
import {
  type Processor,
  type ProcessorContext,
  ProcessorFailure,
  type ProcessorOutput,
  type StreamingRun,
} from "./processor.ts";
import { antivirusAnalysis } from "./schemas.ts";
import type { WalkContext, Walker } from "./tree/walk.ts";
import type { Finding } from "./verdict.ts";

const PING_TIMEOUT_MS = 1500;

/** Only an infected file's hash is reported, so it is computed only then. */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest("hex");
}

/** The scan's verdict over the tree: the upload's own, then its children's (antivirus-tree.ts). */
async function answer(
  clamd: ClamdAddress,
  scan: Promise<ScanVerdict>,
  children: Promise<TreeScan>,
  file: UploadedFile,
  alertUnscanned: boolean,
): Promise<ProcessorOutput> {
  try {
    const [verdict, tree] = await Promise.all([scan, children]);
    const detections = [...tree.detections];
    if (alertUnscanned)
      for (const n of tree.notScanned)
        detections.push({ path: n.path, signature: `${UNSCANNED}${capitalised(n.status)}` });
    const complete = tree.notScanned.length === 0;
    const incompleteness = complete
      ? { complete }
      : { complete, not_scanned: tree.notScanned.map(({ path, reason }) => ({ path, reason })) };
    if (!verdict.infected && detections.length === 0) {
      const extra = complete ? null : incompleteness;
      return {
        content: null,
        metadata: null,
        analysis: { infected: false, description: null, filename: file.filename, extra },
      };
    }
    // A child's detection names the child; the upload's own keeps clamd's name alone (as Mandolin's).
    const first = detections[0];
    const signature = first ? first.signature : (verdict as { signature: string }).signature;
    const description = first ? `${first.signature} in ${first.path}` : signature;
    const engine = await version(clamd, PING_TIMEOUT_MS).catch(() => ({ engine: "ClamAV", database: null }));
    const own = verdict.infected ? [{ path: file.filename, signature: verdict.signature }] : [];
    const named = deepest([...own, ...detections]);
    return {
      content: null,
      metadata: null,
      analysis: {
        infected: true,
        description,
        filename: file.filename,
        extra: {
          engine: engine.engine,
          database: engine.database,
          signature,
          sha256: await sha256Of(file.path),
          detections: named,
          ...incompleteness,
        },
      },
    };
  } catch (err) {
    if (err instanceof ClamdError) throw new ProcessorFailure(err.short, err.message);
    throw err;
  }
}

/** The signature of a child reported as a detection because it could not be scanned. */
const UNSCANNED = "Loupe.Unscanned.";
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The clamd to use: FILES_CLAMD_SOCKET, else FILES_CLAMD_HOST/FILES_CLAMD_PORT, else the one Loupe
 * runs itself; scanning by path (FILES_CLAMD_SCAN_PATHS) by default only with the latter, whose
 * user and limits Loupe chose.
 */
export function configuredClamd(config: FilesConfig, managed?: ClamdAddress): ClamdAddress | undefined {
  const given: ClamdAddress | undefined = config.clamdSocket
    ? { socket: config.clamdSocket }
    : config.clamdHost
      ? { host: config.clamdHost, port: config.clamdPort }
      : undefined;
  const address = given ?? managed;
  if (!address) return undefined;
  const scanPaths = config.clamdScanPaths === "auto" ? given === undefined : config.clamdScanPaths === "yes";
  return scanPaths ? { ...address, scanPaths, pathMaxBytes: config.maxFileSize } : { ...address, scanPaths };
}

export function createAntivirusProcessor(
  config: FilesConfig,
  clamd: ClamdAddress | undefined,
  walker: Walker,
): Processor {
  const treeOptions = { timeoutMs: config.scanTimeoutMs, batchBytes: config.antivirusBatchBytes };
  /** The children's scan, once the upload is walked; a walk that fails leaves the upload's children unscanned. */
  const children = async (
    address: ClamdAddress,
    file: UploadedFile,
    fields: Record<string, string>,
    ctx: WalkContext,
  ): Promise<TreeScan> => {
    try {
      return await walker.withNodes(file, fields, ctx, (nodes) => scanTree(address, nodes, treeOptions));
    } catch (err) {
      if (!(err instanceof ProcessorFailure)) throw err;
      const reason = `its children could not be taken out: ${err.message}`;
      return { detections: [], notScanned: [{ path: file.filename, status: "failed", reason }], scans: 0 };
    }
  };
  const startRun = (address: ClamdAddress, ctx: ProcessorContext): StreamingRun => {
    const session = new InstreamSession(address, {
      timeoutMs: config.scanTimeoutMs,
      streamTimeoutMs: config.clamdStreamTimeoutMs,
    });
    return {
      sink: session,
      finish: (file, fields) =>
        answer(
          address,
          session.verdict,
          children(address, file, fields, ctx),
          file,
          config.antivirusAlertUnscanned,
        ),
    };
  };
  return {
    name: "antivirus",
    url: "/analyzer/antivirus",
    description:
      "Antivirus scan by ClamAV (clamd, INSTREAM) of the file and of every child Loupe takes out of it (archive members, also password-protected ones, attachments, embedded objects).",
    needsHashes: false,
    fields: Type.Object({ passwords: passwordsFieldSchema }),
    metadataSchema: Type.Null(),
    analysisSchema: antivirusAnalysis,
    // Without clamd there is nothing to stream to: `run` answers why, once the upload is in. A
    // clamd that reads the temp file itself is not streamed to either: `run` asks it by path.
    ...(clamd && !clamd.scanPaths ? { startRun: (ctx: ProcessorContext) => startRun(clamd, ctx) } : {}),
    async run(file, fields, ctx) {
      if (!clamd) {
        throw new ProcessorFailure(
          "engine_unavailable",
          "No clamd is configured: set FILES_CLAMD_SOCKET or FILES_CLAMD_HOST, or install clamav-daemon so Loupe runs its own.",
        );
      }
      const scan = scanFile(clamd, file.path, config.scanTimeoutMs);
      scan.catch(() => {});
      const tree = children(clamd, file, fields, ctx);
      return answer(clamd, scan, tree, file, config.antivirusAlertUnscanned);
    },
    findings: antivirusFindings,
    async engines() {
      if (!clamd) return { clamd: { ready: false, detail: "not configured" } };
      try {
        await ping(clamd, PING_TIMEOUT_MS);
        const v = await version(clamd, PING_TIMEOUT_MS);
        return {
          clamd: {
            ready: true,
            version: v.database ? `${v.engine}/${v.database}` : v.engine,
            detail: `${describeAddress(clamd)}, ${clamd.scanPaths ? "reads uploads by path" : "sent uploads' bytes (INSTREAM)"}`,
          },
        };
      } catch (err) {
        return { clamd: { ready: false, detail: err instanceof Error ? err.message : String(err) } };
      }
    },
  };
}

type AntivirusAnalysis = {
  extra: {
    detections?: Array<{ path: string; signature: string }>;
    not_scanned?: Array<{ path: string; reason: string }>;
  } | null;
};

/** Detections are malicious (an unscanned child reported as one, FILES_ANTIVIRUS_ALERT_UNSCANNED, is not); unscanned children incomplete. */
function antivirusFindings(analysis: unknown): Finding[] {
  const extra = (analysis as AntivirusAnalysis).extra;
  return [
    ...(extra?.detections ?? []).map((d) =>
      d.signature.startsWith(UNSCANNED)
        ? { level: "incomplete" as const, path: d.path, detail: "not scanned by the antivirus" }
        : { level: "malicious" as const, path: d.path, detail: d.signature },
    ),
    ...(extra?.not_scanned ?? []).map((n) => ({
      level: "incomplete" as const,
      path: n.path,
      detail: `not scanned by the antivirus: ${n.reason}`,
    })),
  ];
}
