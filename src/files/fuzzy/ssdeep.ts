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

/** One candidate block size: its running piece hashes and the digest so far. */
interface Block {
  h: number;
  halfh: number;
  digest: string;
  /** The 64th character, overwritten while the digest is full. */
  last: string;
  /** The pending character of the half-length digest once it holds 31. */
  half: string;
}

const blockSize = (i: number) => MIN_BLOCK * 2 ** i;
const newBlock = (h = INIT, halfh = INIT): Block => ({ h, halfh, digest: "", last: "", half: "" });

export class Ssdeep {
  private readonly window = new Uint8Array(WINDOW);
  private h1 = 0;
  private h2 = 0;
  private h3 = 0;
  private n = 0;
  private total = 0;
  /** Block sizes in use: the first one that never triggered is the last (ssdeep's bhend). */
  private readonly blocks: Block[] = [newBlock()];

  update(bytes: Uint8Array): this {
    const blocks = this.blocks;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] ?? 0;
      const slot = this.n % WINDOW;
      this.h2 = (this.h2 - this.h1 + WINDOW * c) >>> 0;
      this.h1 = (this.h1 + c - (this.window[slot] ?? 0)) >>> 0;
      this.window[slot] = c;
      this.n++;
      this.h3 = ((this.h3 << 5) ^ c) >>> 0;
      const roll = (this.h1 + this.h2 + this.h3) >>> 0;
      for (const b of blocks) {
        b.h = (Math.imul(b.h, PRIME) ^ c) >>> 0;
        b.halfh = (Math.imul(b.halfh, PRIME) ^ c) >>> 0;
      }
      for (let k = 0; k < blocks.length; k++) {
        const bs = blockSize(k);
        if (roll % bs !== bs - 1) break;
        const b = blocks[k] as Block;
        if (b.digest.length === 0 && k === blocks.length - 1 && blocks.length < NUM_BLOCKS)
          blocks.push(newBlock(b.h, b.halfh));
        trigger(b);
      }
    }
    this.total += bytes.length;
    return this;
  }

  digest(): string {
    const blocks = this.blocks;
    let bi = 0;
    while (blockSize(bi) * LENGTH < this.total && bi < NUM_BLOCKS - 1) bi++;
    bi = Math.min(bi, blocks.length - 1);
    while (bi > 0 && (blocks[bi] as Block).digest.length < LENGTH / 2) bi--;
    const roll = (this.h1 + this.h2 + this.h3) >>> 0;
    const b = blocks[bi] as Block;
    let first = b.digest;
    if (roll !== 0) first += B64[b.h % 64];
    else first += b.last;
    let second = "";
    const next = blocks[bi + 1];
    if (next) {
      second = next.digest.slice(0, LENGTH / 2 - 1);
      if (roll !== 0) second += B64[next.halfh % 64];
      else second += next.half;
    } else if (roll !== 0) {
      second = B64[b.h % 64] ?? "";
    }
    return `${blockSize(bi)}:${first}:${second}`;
  }
}

function trigger(b: Block): void {
  const char = B64[b.h % 64] ?? "";
  b.half = B64[b.halfh % 64] ?? "";
  if (b.digest.length < LENGTH - 1) {
    b.digest += char;
    b.h = INIT;
    if (b.digest.length < LENGTH / 2) {
      b.halfh = INIT;
      b.half = "";
    }
  } else {
    b.last = char;
  }
}
