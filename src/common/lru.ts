/** A small LRU map (insertion order, a hit moves the entry to the end): compiled rule sets, checked values. */
export class Lru<V> {
  readonly #entries = new Map<string, V>();
  readonly #evicted: (value: V) => void;

  constructor(evicted: (value: V) => void = () => undefined) {
    this.#evicted = evicted;
  }

  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  /** Adds an entry, then drops the oldest ones past `size`. */
  set(key: string, value: V, size: number): void {
    this.#entries.set(key, value);
    while (this.#entries.size > size) {
      const oldest = this.#entries.keys().next().value as string;
      this.#evicted(this.#entries.get(oldest) as V);
      this.#entries.delete(oldest);
    }
  }
}
