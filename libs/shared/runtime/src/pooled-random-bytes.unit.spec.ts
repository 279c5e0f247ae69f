import { pooledRandomBytes } from './pooled-random-bytes';

describe('pooled random bytes', () => {
  it('hands out the sizes asked for, never the same bytes twice, across many refills of the pool', () => {
    // 20,000 nonces of 12 bytes span about 60 refills of the 4 KiB pool; a refill skipped, or bytes handed
    // out twice, would repeat a nonce (collisions of 96 random bits are out of reach here).
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const nonce = pooledRandomBytes(12);
      expect(nonce).toHaveLength(12);
      seen.add(nonce.toString('hex'));
    }
    expect(seen.size).toBe(20_000);
  });

  it('gives each caller its own buffer: changing one does not change what is drawn next', () => {
    const first = pooledRandomBytes(32);
    const copy = Buffer.from(first);
    first.fill(0);
    const second = pooledRandomBytes(32);
    expect(second.equals(copy)).toBe(false);
    expect(second.equals(Buffer.alloc(32))).toBe(false);
  });

  it('draws sizes larger than the pooled ones directly', () => {
    const large = pooledRandomBytes(5_000);
    expect(large).toHaveLength(5_000);
    expect(large.equals(Buffer.alloc(5_000))).toBe(false);
  });
});
