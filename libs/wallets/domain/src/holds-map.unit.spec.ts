import { HoldsMap } from './holds-map';

describe('the holds of a wallet (HoldsMap)', () => {
  it('behaves as a map of ids, every change making a new one and leaving the others as they were', () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => `aut-${i}`);
    const versions = [HoldsMap.empty<number>()];
    for (const [i, id] of ids.entries()) versions.push(versions[i].set(id, i));
    const full = versions[ids.length];
    expect(full.size).toBe(1_000);
    expect(new Map(full)).toEqual(new Map(ids.map((id, i) => [id, i])));
    // Every earlier version still holds exactly what it held.
    versions.forEach((version, n) => {
      expect(version.size).toBe(n);
      expect(version.has(`aut-${n}`)).toBe(false);
      if (n > 0) expect(version.get(`aut-${n - 1}`)).toBe(n - 1);
    });

    const replaced = full.set('aut-7', 700);
    expect([replaced.size, replaced.get('aut-7'), full.get('aut-7')]).toEqual([1_000, 700, 7]);
    const removed = ids.slice(0, 990).reduce((holds, id) => holds.delete(id), full);
    expect([...removed.keys()].sort()).toEqual(ids.slice(990).sort());
    expect(removed.size).toBe(10);
    expect(removed.delete('aut-never')).toBe(removed);
    expect(full.size).toBe(1_000);
    expect(JSON.parse(JSON.stringify(removed.set('x', 1).delete('aut-995')))).toHaveLength(10);
  });
});
