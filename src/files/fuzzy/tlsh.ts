/**
 * TLSH's bucket counts and checksum in one pass over the bytes, then the npm `tlsh` port's own
 * code for the digest (quartiles, body, header), so the digest is the port's, which the tests
 * check against Debian's tlsh. The port's own pass builds a string, arrays and objects for every
 * byte (about 95 ms for 640 KB); this one reads the bytes as they are.
 */
import { createRequire } from "node:module";

type Buckets = Uint32Array;
interface ProcessedBuckets {
  isProcessedDataTooSimple(): boolean;
  buildDigest(): { toString(): string };
}
const load = createRequire(import.meta.url);
const Processed = load("tlsh/lib/buckets/processed-buckets") as new (
  checksum: number[] | null,
  buckets: Buckets,
  length: number,
  quartiles: unknown,
) => ProcessedBuckets;
const Quartiles = load("tlsh/lib/buckets/quartiles") as new (buckets: Buckets) => unknown;

/** TLSH's Pearson permutation (the port's pearson-hash.js). */
const PEARSON = Uint8Array.from([
  1, 87, 49, 12, 176, 178, 102, 166, 121, 193, 6, 84, 249, 230, 44, 163, 14, 197, 213, 181, 161, 85, 218, 80,
  64, 239, 24, 226, 236, 142, 38, 200, 110, 177, 104, 103, 141, 253, 255, 50, 77, 101, 81, 18, 45, 96, 31,
  222, 25, 107, 190, 70, 86, 237, 240, 34, 72, 242, 20, 214, 244, 227, 149, 235, 97, 234, 57, 22, 60, 250, 82,
  175, 208, 5, 127, 199, 111, 62, 135, 248, 174, 169, 211, 58, 66, 154, 106, 195, 245, 171, 17, 187, 182, 179,
  0, 243, 132, 56, 148, 75, 128, 133, 158, 100, 130, 126, 91, 13, 153, 246, 216, 219, 119, 68, 223, 78, 83,
  88, 201, 99, 122, 11, 92, 32, 136, 114, 52, 10, 138, 30, 48, 183, 156, 35, 61, 26, 143, 74, 251, 94, 129,
  162, 63, 152, 170, 7, 115, 167, 241, 206, 3, 150, 55, 59, 151, 220, 90, 53, 23, 131, 125, 173, 15, 238, 79,
  95, 89, 16, 105, 137, 225, 224, 217, 160, 37, 123, 118, 73, 2, 157, 46, 116, 9, 145, 134, 228, 207, 212,
  202, 215, 69, 229, 27, 188, 67, 124, 168, 252, 42, 4, 29, 108, 21, 247, 19, 205, 39, 203, 233, 40, 186, 147,
  198, 192, 155, 33, 164, 191, 98, 204, 165, 180, 117, 76, 140, 36, 210, 172, 41, 54, 159, 8, 185, 232, 113,
  196, 231, 47, 146, 120, 51, 65, 28, 144, 254, 221, 93, 189, 194, 139, 112, 43, 71, 109, 184, 209,
]);
const P = (i: number) => PEARSON[i] as number;
/** The first step of each triplet's hash (and of the checksum's, salt 0): the permutation of its salt. */
const S0 = P(0);
const S2 = P(2);
const S3 = P(3);
const S5 = P(5);
const S7 = P(7);
const S11 = P(11);
const S13 = P(13);

const count = (buckets: Buckets, k: number) => {
  buckets[k] = (buckets[k] ?? 0) + 1;
};

/** The TLSH digest of `bytes`, or null when they are too short or too uniform (under 512 bytes, or too few buckets filled). */
export function tlshDigest(bytes: Uint8Array): string | null {
  const buckets: Buckets = new Uint32Array(256);
  let checksum = 0;
  // A window of five bytes: a the newest, e the oldest.
  for (let i = 4; i < bytes.length; i++) {
    const a = bytes[i] as number;
    const b = bytes[i - 1] as number;
    const c = bytes[i - 2] as number;
    const d = bytes[i - 3] as number;
    const e = bytes[i - 4] as number;
    checksum = P(P(P(S0 ^ a) ^ b) ^ checksum);
    count(buckets, P(P(P(S2 ^ a) ^ b) ^ c));
    count(buckets, P(P(P(S3 ^ a) ^ b) ^ d));
    count(buckets, P(P(P(S5 ^ a) ^ c) ^ d));
    count(buckets, P(P(P(S7 ^ a) ^ c) ^ e));
    count(buckets, P(P(P(S11 ^ a) ^ b) ^ e));
    count(buckets, P(P(P(S13 ^ a) ^ d) ^ e));
  }
  const processed = new Processed(
    bytes.length >= 5 ? [checksum] : null,
    buckets,
    bytes.length,
    new Quartiles(buckets),
  );
  return processed.isProcessedDataTooSimple() ? null : processed.buildDigest().toString();
}
