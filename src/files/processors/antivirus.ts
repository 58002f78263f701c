/**
 * `POST /analyzer/antivirus`: the upload streamed to clamd (INSTREAM) while it arrives, beside its
 * temp file (kept for the sha256 of an infected file); the verdict, never a 5xx. Other routes
 * (`/analyzer/all`) scan the saved file.
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
import { type Processor, ProcessorFailure, type ProcessorOutput, type StreamingRun } from "./processor.ts";
import { antivirusAnalysis } from "./schemas.ts";

const PING_TIMEOUT_MS = 1500;

/** Only an infected file's hash is reported, so it is computed only then. */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest("hex");
}

/** The entry for a scan's verdict; `file` is complete on disk by then. */
async function answer(
  clamd: ClamdAddress,
  scan: Promise<ScanVerdict>,
  file: UploadedFile,
): Promise<ProcessorOutput> {
  try {
    const verdict = await scan;
    if (!verdict.infected) {
      return {
        content: null,
        metadata: null,
        analysis: { infected: false, description: null, filename: file.filename, extra: null },
      };
    }
    const engine = await version(clamd, PING_TIMEOUT_MS).catch(() => ({
      engine: "ClamAV",
      database: null,
    }));
    return {
      content: null,
      metadata: null,
      analysis: {
        infected: true,
        description: verdict.signature,
        filename: file.filename,
        extra: {
          engine: engine.engine,
          database: engine.database,
          signature: verdict.signature,
          sha256: await sha256Of(file.path),
        },
      },
    };
  } catch (err) {
    if (err instanceof ClamdError) throw new ProcessorFailure(err.short, err.message);
    throw err;
  }
}

/** The clamd to use: CLAMD_SOCKET, else CLAMD_HOST/CLAMD_PORT, else the one Loupe runs itself. */
export function configuredClamd(config: FilesConfig, managed?: ClamdAddress): ClamdAddress | undefined {
  if (config.clamdSocket) return { socket: config.clamdSocket };
  if (config.clamdHost) return { host: config.clamdHost, port: config.clamdPort };
  return managed;
}

export function createAntivirusProcessor(config: FilesConfig, clamd: ClamdAddress | undefined): Processor {
  const startRun = (address: ClamdAddress): StreamingRun => {
    const session = new InstreamSession(address, {
      timeoutMs: config.scanTimeoutMs,
      streamTimeoutMs: config.clamdStreamTimeoutMs,
    });
    return { sink: session, finish: (file) => answer(address, session.verdict, file) };
  };
  return {
    name: "antivirus",
    url: "https://www.clamav.net/",
    description: "Antivirus scan by ClamAV (clamd, INSTREAM).",
    needsHashes: false,
    fields: Type.Object({}),
    metadataSchema: Type.Null(),
    analysisSchema: antivirusAnalysis,
    // Without clamd there is nothing to stream to: `run` answers why, once the upload is in.
    ...(clamd ? { startRun: () => startRun(clamd) } : {}),
    async run(file) {
      if (!clamd) {
        throw new ProcessorFailure(
          "engine_unavailable",
          "No clamd is configured: set CLAMD_SOCKET or CLAMD_HOST, or install clamav-daemon so Loupe runs its own.",
        );
      }
      return answer(clamd, scanFile(clamd, file.path, config.scanTimeoutMs), file);
    },
    async engines() {
      if (!clamd) return { clamd: { ready: false, detail: "not configured" } };
      try {
        await ping(clamd, PING_TIMEOUT_MS);
        const v = await version(clamd, PING_TIMEOUT_MS);
        return {
          clamd: {
            ready: true,
            version: v.database ? `${v.engine}/${v.database}` : v.engine,
            detail: describeAddress(clamd),
          },
        };
      } catch (err) {
        return { clamd: { ready: false, detail: err instanceof Error ? err.message : String(err) } };
      }
    },
  };
}
