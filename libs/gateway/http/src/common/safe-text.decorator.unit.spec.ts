import { validateSync } from 'class-validator';
import { IsSafeText, isSafeText } from './safe-text.decorator';

class Named {
  @IsSafeText()
  name: unknown;
}

const errorsOf = (name: unknown) => validateSync(Object.assign(new Named(), { name }));

describe('safe human text', () => {
  it.each([
    ['NUL', 'Ada\u0000'],
    ['a C0 control', 'Ada\u001b[31m'],
    ['DEL', 'Ada\u007f'],
    ['a C1 control', 'Ada\u0085'],
    ['a right-to-left override', 'Ada\u202e'],
    ['a left-to-right embedding', '\u202aAda'],
    ['a first-strong isolate', 'Ada\u2068'],
    ['a pop directional isolate', 'Ada\u2069'],
    ['a right-to-left mark', 'Ada\u200f'],
    ['an Arabic letter mark', 'Ada\u061c'],
    ['a lone high surrogate', 'Ada\ud800'],
    ['a lone low surrogate', '\udc00Ada'],
    ['a reversed surrogate pair', '\udc00\ud800'],
  ])('refuses %s', (_, text) => {
    expect(isSafeText(text)).toBe(false);
    expect(errorsOf(text)[0].constraints).toEqual({
      isSafeText: 'name must be text without control characters, lone surrogates or bidirectional controls',
    });
  });

  it.each([
    ['accents', 'Zoë Ōtsuka'],
    ['Arabic', 'محمد'],
    ['Hebrew', 'שלום'],
    ['CJK', '山田太郎'],
    ['an astral character', '𝔘𝔫𝔦'],
    ['an emoji sequence', '👩‍👩‍👧'],
    ['an apostrophe and a hyphen', "O'Brien-Smith"],
  ])('takes %s', (_, text) => {
    expect(isSafeText(text)).toBe(true);
    expect(errorsOf(text)).toEqual([]);
  });

  it('refuses what is not a string', () => {
    expect(isSafeText(42)).toBe(false);
    expect(isSafeText(['Ada'])).toBe(false);
  });
});
