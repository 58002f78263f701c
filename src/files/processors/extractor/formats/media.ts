/** Audio and video containers (MP3/ID3, FLAC, OGG, M4A/MP4, WAV, MKV…) with music-metadata: tags and technical facts. */
import { parseBuffer } from "music-metadata";
import { type Extracted, isoDate, ParseFailure } from "../result.ts";

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
  return {
    text: "",
    title: common.title ?? null,
    created: isoDate(common.date ?? common.originaldate),
    extra: { audio, ...(Object.keys(tags).length ? { tags } : {}) },
  };
}
