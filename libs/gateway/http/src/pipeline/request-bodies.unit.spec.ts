import { inexactNumber, MAX_JSON_DEPTH, nestsDeeperThan } from './request-bodies';

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

describe('numbers JSON.parse would round', () => {
  it('finds a literal with more significant digits than a double keeps', () => {
    expect(inexactNumber('{"amount":1.00000000000000001}')).toBe('1.00000000000000001');
    expect(inexactNumber('{"a":"1.00000000000000001","b":[0.1000000000000000055511151231257827]}')).toBe(
      '0.1000000000000000055511151231257827',
    );
    expect(inexactNumber('{"amount":-12345.6789012345678e-2}')).toBe('-12345.6789012345678e-2');
  });

  it('lets through what reads exactly, strings, and magnitudes left to their field', () => {
    expect(inexactNumber('{"amount":999999999.999999,"b":100.50,"c":0.000001,"d":-0,"e":1e309}')).toBeNull();
    expect(inexactNumber('{"note":"1.00000000000000001","n":120000000000000000000}')).toBeNull();
    expect(inexactNumber('{"amount":9007199254.740993}')).toBeNull();
  });
});
