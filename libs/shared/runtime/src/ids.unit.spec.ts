import { timeOrderedUuid } from './ids';

describe('timeOrderedUuid (RFC 9562 version 7)', () => {
  it('is a version 7, variant 10 UUID carrying its millisecond', () => {
    const at = Date.parse('2026-11-29T06:00:00.000Z');
    const id = timeOrderedUuid(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts as text in the order of its milliseconds, and differs within one', () => {
    const ids = [0, 1, 2, 1_000, 86_400_000].map((ms) => timeOrderedUuid(1_764_000_000_000 + ms));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(1_764_000_000_000))).size).toBe(1000);
  });
});
