import { MAX_JSON_DEPTH, nestsDeeperThan } from './request-bodies';

describe('the JSON depth limit, found before parsing', () => {
  const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

  it('lets a body at the limit through and refuses one level more', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`[${nested(MAX_JSON_DEPTH)}]`, MAX_JSON_DEPTH)).toBe(true);
  });

  it('counts brackets inside strings as text, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[{{{{\\"[[[[', b: '"'.repeat(10) + '['.repeat(100) });
    expect(nestsDeeperThan(text, 2)).toBe(false);
  });

  it('stops at the limit without walking the rest of a huge body', () => {
    expect(nestsDeeperThan('['.repeat(10_000_000), MAX_JSON_DEPTH)).toBe(true);
  });
});
