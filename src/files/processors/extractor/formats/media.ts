/** Audio and video containers (MP3/ID3, FLAC, OGG, M4A/MP4, WAV, MKV…) with music-metadata: tags and technical facts. */
import { parseBuffer } from "music-metadata";
import { type Extracted, isoDate, ParseFailure, snakeCase } from "../result.ts";

export async function extractMedia(bytes: Buffer, mimeType: string): Promise<Extracted> {
  let meta: Awaited<ReturnType<typeof parseBuffer>>;
  try {
    meta = await parseBuffer(bytes, { mimeType, size: bytes.length }, { duration: true, skipCovers: true });
  } catch (err) {
    throw new ParseFailure(
      `not a readable ${mimeType} file: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const { common, format } = meta;
  const pick = (o: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(o).filter(
        ([, v]) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0),
      ),
    );
  const audio = pick({
    container: format.container,
    codec: format.codec,
    duration_seconds: format.duration === undefined ? undefined : Math.round(format.duration * 1000) / 1000,
    bitrate: format.bitrate === undefined ? undefined : Math.round(format.bitrate),
    sample_rate: format.sampleRate,
    channels: format.numberOfChannels,
    bits_per_sample: format.bitsPerSample,
    lossless: format.lossless,
  });
  const tags = pick({
    title: common.title,
    artist: common.artist,
    album: common.album,
    year: common.year,
    genre: common.genre,
    comment: common.comment
      ?.map((c) => (typeof c === "string" ? c : ((c as { text?: string }).text ?? "")))
      .join(" "),
    encoder: common.encodedby,
  });
  addNativeTags(meta.native, tags);
  const video = meta.format.trackInfo.find((t) => t.video)?.video;
  const videoTrack = meta.format.trackInfo.find((t) => t.video);
  const videoNs = video
    ? pick({
        width: video.pixelWidth ?? video.displayWidth,
        height: video.pixelHeight ?? video.displayHeight,
        codec: videoTrack?.codecName,
        frame_rate: video.frameRate,
      })
    : {};
  return {
    text: "",
    title: common.title ?? null,
    created: isoDate(common.date ?? common.originaldate ?? tags.date),
    extra: {
      audio,
      ...(Object.keys(videoNs).length ? { video: videoNs } : {}),
      ...(Object.keys(tags).length ? { tags } : {}),
    },
  };
}

/**
 * Tags music-metadata does not map to its common names (ID3 TXXX frames such as ffmpeg's
 * comment, Matroska track-level ALBUM/DATE/COMMENT, iTunes freeform atoms…): kept under their
 * own names, snake_case, never overriding a mapped tag.
 */
function addNativeTags(
  native: Record<string, Array<{ id: string; value: unknown }>>,
  tags: Record<string, unknown>,
) {
  for (const [format, list] of Object.entries(native)) {
    for (const { id, value } of list) {
      if (typeof value !== "string" && typeof value !== "number") continue;
      if (format.startsWith("ID3") && /^[A-Z0-9]{3,4}$/.test(id)) continue;
      // iTunes atoms (©nam, ©ART…) repeat mapped tags; only freeform ----:mean:name atoms are new.
      if (format === "iTunes" && !id.startsWith("----:")) continue;
      const key = snakeCase(
        id.replace(/^----:[^:]*:/, "").replace(/^(?:TXXX|track|segment|chapter|edition|attachment):/i, ""),
      );
      if (!key || key in tags || key === "duration" || key === "encoder") continue;
      tags[key] = value;
    }
  }
}
