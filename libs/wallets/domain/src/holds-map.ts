// ---------------------------------------------------------------------------------------------------
// The open holds of a wallet, immutable and cheap to change.
//
// A wallet state never changes once built (folding an event makes a new one; the state cache and the
// optimistic retry rely on that), so the holds used to be copied as a whole Map on every hold event: with
// hundreds of open authorizations on a wallet, that copy was the largest cost of a placeHold after the
// append itself (a profile of tools/bench/ledger-holds-bench.ts put it at a sixth of the CPU). Here the
// holds are spread over BUCKETS frozen maps by a hash of their id: a change copies the array of buckets and
// the one bucket it touches, about BUCKETS + size / BUCKETS references instead of size.
//
// Hand-written rather than a persistent-collections library: no such library is among the platform's
// dependencies, and these few lines need only get/has/set/delete and iteration.
// ---------------------------------------------------------------------------------------------------

const BUCKETS = 64;

/** FNV-1a of the id, folded onto a bucket. */
function bucketOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

export class HoldsMap<V> implements ReadonlyMap<string, V> {
  private static readonly EMPTY = new HoldsMap<never>(new Array(BUCKETS).fill(undefined), 0);

  static empty<V>(): HoldsMap<V> {
    return HoldsMap.EMPTY;
  }

  private constructor(
    private readonly buckets: readonly (ReadonlyMap<string, V> | undefined)[],
    readonly size: number,
  ) {}

  get(key: string): V | undefined {
    return this.buckets[bucketOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.buckets[bucketOf(key)]?.has(key) ?? false;
  }

  /** These holds with `key` set to `value` (this one is left as it is). */
  set(key: string, value: V): HoldsMap<V> {
    const index = bucketOf(key);
    const bucket = new Map(this.buckets[index]);
    const added = bucket.has(key) ? 0 : 1;
    bucket.set(key, value);
    return this.with(index, bucket, this.size + added);
  }

  /** These holds without `key` (this one is left as it is). */
  delete(key: string): HoldsMap<V> {
    const index = bucketOf(key);
    if (!this.buckets[index]?.has(key)) return this;
    const bucket = new Map(this.buckets[index]);
    bucket.delete(key);
    return this.with(index, bucket.size ? bucket : undefined, this.size - 1);
  }

  private with(index: number, bucket: ReadonlyMap<string, V> | undefined, size: number): HoldsMap<V> {
    const buckets = this.buckets.slice();
    buckets[index] = bucket;
    return new HoldsMap(buckets, size);
  }

  *entries(): MapIterator<[string, V]> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.entries();
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  /** As a Map would print: its entries. */
  toJSON(): [string, V][] {
    return [...this.entries()];
  }
}
