import { IsoFormatError } from './errors';
import { DE048, readSubelements, writeSubelements } from './private-data';

describe('DE-048 private subelements', () => {
  it('writes id, two-digit length and data per subelement, skipping absent ones, and reads them back', () => {
    const value = writeSubelements({ [DE048.ORIGINAL_RRN]: '633200000042', '10': undefined, '42': 'AB' });
    // In ascending id order, as the networks list them (integer-like keys of an object iterate so).
    expect(value).toBe('4202AB' + '6312633200000042');
    expect(readSubelements(value)).toEqual({ '63': '633200000042', '42': 'AB' });
  });

  it('has no value without subelements, and reads an absent field as none', () => {
    expect(writeSubelements({ '63': undefined })).toBeUndefined();
    expect(readSubelements(undefined)).toEqual({});
  });

  it.each(['63', '6312', '631263320000004', 'X102AB', '63A1B'])('refuses the malformed %p', (value) => {
    expect(() => readSubelements(value)).toThrow(IsoFormatError);
  });
});
