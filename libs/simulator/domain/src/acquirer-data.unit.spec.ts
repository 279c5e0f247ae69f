import { readClearingFile, writeClearingFile, type ClearingPresentment } from '@cip/simulator/contract';
import { currencyAlpha, currencyNumeric, toMinorUnits } from './currencies';
import { RrnSequence } from './references';

describe('amounts and currencies (DE-004, DE-049)', () => {
  it('turns currency units into ISO 4217 minor units by exponent', () => {
    expect(toMinorUnits(12.5, 'USD')).toBe(1250);
    expect(toMinorUnits(0.3, 'EUR')).toBe(30);
    // The sum's decimal text is 0.30000000000000004: judged on the text, not rounded to 30.
    expect(toMinorUnits(0.1 + 0.2, 'EUR')).toBeNull();
    expect(toMinorUnits(1500, 'JPY')).toBe(1500);
    expect(toMinorUnits(1.234, 'KWD')).toBe(1234);
  });

  it('refuses more decimals than the currency has, non-positive amounts, n12 overflow and unknown currencies', () => {
    expect(toMinorUnits(12.345, 'USD')).toBeNull();
    expect(toMinorUnits(1.5, 'JPY')).toBeNull();
    expect(toMinorUnits(0, 'USD')).toBeNull();
    expect(toMinorUnits(-1, 'USD')).toBeNull();
    expect(toMinorUnits(10_000_000_000, 'USD')).toBeNull();
    expect(toMinorUnits(1, 'XYZ')).toBeNull();
  });

  it('maps alpha codes to numeric ones and back', () => {
    expect(currencyNumeric('EUR')).toBe('978');
    expect(currencyNumeric('AUD')).toBe('036');
    expect(currencyAlpha('840')).toBe('USD');
    expect(currencyAlpha('999')).toBeNull();
  });
});

describe('retrieval reference numbers (DE-037)', () => {
  it('are 12 characters: year digit, day of year, then a sequence that never repeats within a day', () => {
    const rrns = new RrnSequence(41);
    const at = new Date('2026-11-23T10:00:00Z');
    expect(rrns.next(at)).toBe('632700000042');
    expect(rrns.next(at)).toBe('632700000043');
    expect(new RrnSequence(99_999_999).next(at)).toBe('632700000000');
  });
});

describe('clearing file', () => {
  const presentment = (sequence: number, amountMinor: number): ClearingPresentment => ({
    sequence,
    kind: 'presentment',
    acquirerId: '400001',
    rrn: '632700000042',
    approvalCode: '123456',
    cardId: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7',
    panLast4: '4242',
    processingCode: '000000',
    amountMinor,
    currency: 'EUR',
    mcc: '5814',
    merchantName: 'Cafe | Bar',
    merchantCity: 'Paris',
    merchantCountry: 'FR',
    merchantId: 'SANDBOXMERCH001',
    terminalId: 'SBXTERM1',
    presentedAt: '2026-11-23T10:00:00.000Z',
  });
  const header = {
    fileId: 'CLR-sandbox-20261123-000001',
    businessDate: '2026-11-23',
    createdAt: '2026-11-23T10:00:00.000Z',
  };

  it('writes a header, a record per presentment and a trailer with count and total, and reads them back', () => {
    const content = writeClearingFile(header, [presentment(1, 1250), presentment(2, 700)]);
    const lines = content.trim().split('\n');
    expect(lines[0]).toBe('H|1|CLR-sandbox-20261123-000001|2026-11-23|2026-11-23T10:00:00.000Z');
    expect(lines.at(-1)).toBe('T|2|1950');
    const read = readClearingFile(content);
    expect(read.fileId).toBe(header.fileId);
    expect(read.presentments.map((p) => [p.sequence, p.amountMinor])).toEqual([
      [1, 1250],
      [2, 700],
    ]);
    // The separator cannot appear inside a field: it is replaced by a space.
    expect(read.presentments[0].merchantName).toBe('Cafe   Bar');
  });

  it('never carries more of the card than its id and last four digits', () => {
    const content = writeClearingFile(header, [presentment(1, 1250)]);
    expect(content).not.toMatch(/\d{13,19}/);
  });

  it('refuses a file whose trailer does not match its records (a truncated transfer)', () => {
    const content = writeClearingFile(header, [presentment(1, 1250), presentment(2, 700)]);
    const truncated = content
      .split('\n')
      .filter((line) => !line.startsWith('P|2|'))
      .join('\n');
    expect(() => readClearingFile(truncated)).toThrow('trailer does not match');
    expect(() => readClearingFile('nonsense')).toThrow('bad header');
  });
});
