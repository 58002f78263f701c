/**
 * The thumbnail kept with an analysis of an image (INTEL_ANALYSIS_THUMBNAIL_SIDE): asked of the
 * files service once its answer says the file is an image, while the file is still on disk. A
 * thumbnail is a nicety: whatever goes wrong is logged, and the analysis is done without one.
 */
import type { Logger } from "../../common/logger.ts";
import { rootType } from "../domain/analysis-result.ts";
import type { AnalysisRow } from "../store/analyses.ts";
import { thumbnailWithFiles } from "./analysis-files.ts";
import type { IntelServices } from "./index.ts";

export async function thumbnailFor(
  config: IntelServices["config"],
  job: { row: AnalysisRow; file: string; answer: unknown; signal: AbortSignal },
  log?: Logger,
): Promise<Buffer | null> {
  const side = config.analysisThumbnailSide;
  if (side === 0 || config.filesUrl === null || !rootType(job.answer)?.startsWith("image/")) return null;
  try {
    return await thumbnailWithFiles({
      url: config.filesUrl,
      filePath: job.file,
      name: job.row.name,
      side,
      timeoutMs: config.analysisTimeoutMs,
      maxBytes: config.analysisThumbnailMaxBytes,
      signal: job.signal,
    });
  } catch (err) {
    log?.warn({ err, analysis: job.row.id }, "analysis: no thumbnail, the analysis is kept without one");
    return null;
  }
}
