/**
 * What an analyzer is: a named processor that turns one uploaded file (plus text form fields) into
 * an entry of the analysis result. The server builds one route per processor from the registry.
 */

import type { Writable } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import { type TObject, type TSchema, Type } from "typebox";
import type { InMemoryFile, UploadedFile } from "../upload.ts";
import type { Finding } from "./verdict.ts";

export interface ProcessorOutput {
  /** Top-level `content` of the analysis result (the extracted text), or null. */
  content: string | null;
  metadata: unknown;
  analysis: unknown;
}

export interface ProcessorContext {
  log: FastifyBaseLogger;
  /** Aborted when the client goes away: long work should stop. */
  signal: AbortSignal;
  /** Who asked (the remote address): a processor may bound one client's share of its workers. */
  client?: string;
}

/** Work fed with an upload's bytes while they arrive (see `Processor.startRun`). */
export interface StreamingRun {
  /** Receives the file's bytes; destroyed if the upload fails. */
  sink: Writable;
  /** The output, once the upload is complete and saved (`file.path` holds all of it then). */
  finish(file: UploadedFile, fields: Record<string, string>): Promise<ProcessorOutput>;
}

export interface EngineStatus {
  ready: boolean;
  version?: string;
  detail?: string;
  /** Workers replaced after an engine fault since the start (engines run in worker pools). */
  retired_workers?: number;
}

export interface Processor {
  name: string;
  url: string;
  description: string;
  /** Whether `file.hashes` must be computed during the upload (default true; it costs CPU on big files). */
  needsHashes?: boolean;
  /** Text form fields the processor reads beside `file` (documented in OpenAPI). */
  fields: TObject;
  metadataSchema: TSchema;
  analysisSchema: TSchema;
  /** Refuses bad fields with an HttpError before any work; runs once the upload is saved. */
  run(file: UploadedFile, fields: Record<string, string>, ctx: ProcessorContext): Promise<ProcessorOutput>;
  /**
   * Its own route keeps an upload within FILES_UPLOAD_MEMORY_MAX in memory when the processor can work
   * on bytes (no temp file to write, hand over and remove), and calls this instead of `run`.
   */
  runOnBytes?(
    file: InMemoryFile,
    fields: Record<string, string>,
    ctx: ProcessorContext,
  ): Promise<ProcessorOutput>;
  /**
   * Its own route may instead start the work when the file begins to arrive (fields are not read
   * then): the bytes are written to `sink` as they come, beside the temp file.
   */
  startRun?(ctx: ProcessorContext): StreamingRun;
  /**
   * What in its own analysis counts for the verdict (verdict.ts): malicious, suspicious, or left
   * unexamined, each at a node's path. Absent: nothing it answers changes the verdict.
   */
  findings?(analysis: unknown, file: { filename: string }): Finding[];
  /** Engines behind the processor and whether they can work now (shown by `GET /`). */
  engines(): Promise<Record<string, EngineStatus>>;
  /** Releases what the processor holds (worker pools, child processes). */
  close?(): Promise<void>;
}

/** A processor that could not do its work: reported in its entry (HTTP 200), never as a 5xx. */
export class ProcessorFailure extends Error {
  readonly short: string;
  constructor(short: string, message: string) {
    super(message);
    this.name = "ProcessorFailure";
    this.short = short;
  }
}

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One processor's entry in the answer, its analysis given as a schema or a reference to one. */
export function entrySchema(p: Pick<Processor, "metadataSchema">, analysis: TSchema) {
  return Type.Object({
    success: Type.Boolean(),
    processor_name: Type.String(),
    processor_url: Type.String(),
    processor_description: Type.String(),
    error: nullable(Type.String()),
    error_short: nullable(Type.String()),
    metadata: nullable(p.metadataSchema),
    analysis: nullable(analysis),
  });
}

/** The whole answer: `processors` maps a processor's name to its entry, as Mandolin's dict does. */
export function resultSchema(entry: TSchema) {
  return Type.Object({
    success: Type.Boolean(),
    content: nullable(Type.String()),
    error: nullable(Type.String()),
    error_short: nullable(Type.String()),
    processors: Type.Record(Type.String(), entry),
  });
}

export const FreeObject = Type.Record(Type.String(), Type.Unknown());
