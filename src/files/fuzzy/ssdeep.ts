/**
 * ssdeep digests (context-triggered piecewise hashing) computed as ssdeep 2.x does, streaming, in
 * one pass over the bytes. Ours because the npm port `ssdeep.js` differs from Debian's `ssdeep` on
 * binaries (it always appends the last piece); the tests check this one against the Debian tool.
 */

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const WINDOW = 7;
const MIN_BLOCK = 3;
const LENGTH = 64;
const PRIME = 0x01000193;
const INIT = 0x28021967;
const NUM_BLOCKS = 31;

/** One candidate block size: the digest so far (its running piece hashes live in `Ssdeep`'s arrays). */
interface Block {
  digest: string;
  /** The 64th character, overwritten while the digest is full. */
  last: string;
  /** The pending character of the half-length digest once it holds 31. */
  half: string;
}

const blockSize = (i: number) => MIN_BLOCK * 2 ** i;
const newBlock = (): Block => ({ digest: "", last: "", half: "" });

export class Ssdeep {
  private readonly window = new Uint8Array(WINDOW);
  private h1 = 0;
  private h2 = 0;
  private h3 = 0;
  private n = 0;
  private total = 0;
  /** Block sizes in use: the first one that never triggered is the last (ssdeep's bhend). */
  private readonly blocks: Block[] = [newBlock()];
  /** Each block's running piece hash and half-digest piece hash, by block index. */
  private readonly h = new Uint32Array(NUM_BLOCKS).fill(INIT);
  private readonly halfh = new Uint32Array(NUM_BLOCKS).fill(INIT);
  /**
   * Blocks below this one can no longer be chosen by `digest` (ssdeep's bhstart): the input is
   * already longer than 64 pieces of the next block, and that one holds half a digest, so they are
   * no longer hashed. Most of the per-byte work was hashing them.
   */
  private start = 0;

  update(bytes: Uint8Array): this {
    const { blocks, window, h, halfh } = this;
    let { h1, h2, h3, n } = this;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] as number;
      const slot = n % WINDOW;
      h2 = (h2 - h1 + WINDOW * c) >>> 0;
      h1 = (h1 + c - (window[slot] as number)) >>> 0;
      window[slot] = c;
      n++;
      h3 = ((h3 << 5) ^ c) >>> 0;
      const roll = (h1 + h2 + h3) >>> 0;
      const end = blocks.length;
      for (let k = this.start; k < end; k++) {
        h[k] = Math.imul(h[k] as number, PRIME) ^ c;
        halfh[k] = Math.imul(halfh[k] as number, PRIME) ^ c;
      }
      // Block sizes double: a size that does not trigger here means no larger one does.
      if (roll % blockSize(this.start) === blockSize(this.start) - 1) this.triggers(roll, this.total + i + 1);
    }
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    this.n = n;
    this.total += bytes.length;
    return this;
  }

  private triggers(roll: number, seen: number): void {
    const { blocks, h, halfh } = this;
    for (let k = this.start; k < blocks.length; k++) {
      const bs = blockSize(k);
      if (roll % bs !== bs - 1) break;
      const b = blocks[k] as Block;
      if (b.digest.length === 0 && k === blocks.length - 1 && blocks.length < NUM_BLOCKS) {
        h[k + 1] = h[k] as number;
        halfh[k + 1] = halfh[k] as number;
        blocks.push(newBlock());
      }
      this.trigger(k);
    }
    // ssdeep's fuzzy_try_reduce_blockhash: what is seen only grows, and so do the digests.
    while (
      this.start + 1 < blocks.length &&
      seen > blockSize(this.start + 1) * LENGTH &&
      (blocks[this.start + 1] as Block).digest.length >= LENGTH / 2
    )
      this.start++;
  }

  private trigger(k: number): void {
    const b = this.blocks[k] as Block;
    const char = B64[(this.h[k] as number) % 64] ?? "";
    b.half = B64[(this.halfh[k] as number) % 64] ?? "";
    if (b.digest.length < LENGTH - 1) {
      b.digest += char;
      this.h[k] = INIT;
      if (b.digest.length < LENGTH / 2) {
        this.halfh[k] = INIT;
        b.half = "";
      }
    } else {
      b.last = char;
    }
  }

  digest(): string {
    const blocks = this.blocks;
    let bi = 0;
    while (blockSize(bi) * LENGTH < this.total && bi < NUM_BLOCKS - 1) bi++;
    bi = Math.min(bi, blocks.length - 1);
    while (bi > 0 && (blocks[bi] as Block).digest.length < LENGTH / 2) bi--;
    const roll = (this.h1 + this.h2 + this.h3) >>> 0;
    const b = blocks[bi] as Block;
    const bh = this.h[bi] as number;
    let first = b.digest;
    if (roll !== 0) first += B64[bh % 64];
    else first += b.last;
    let second = "";
    const next = blocks[bi + 1];
    if (next) {
      second = next.digest.slice(0, LENGTH / 2 - 1);
      if (roll !== 0) second += B64[(this.halfh[bi + 1] as number) % 64];
      else second += next.half;
    } else if (roll !== 0) {
      second = B64[bh % 64] ?? "";
    }
    return `${blockSize(bi)}:${first}:${second}`;
  }
}
