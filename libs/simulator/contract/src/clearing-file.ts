import type { ClearingPresentment } from './simulator.api';

// ---------------------------------------------------------------------------------------------------
// The clearing batch file (the format is documented in libs/simulator/README.md, "Clearing file"): one
// header, one line per presentment, one trailer with the record count and the sum of the amounts, fields
// separated by `|`. No PAN in clear: the card is named by the platform's card id and the PAN's last four.
// Text fields are printable ASCII without `|` (the writer replaces anything else by a space).
// ---------------------------------------------------------------------------------------------------

export const CLEARING_FILE_VERSION = '1';

const PRESENTMENT_FIELDS = [
  'sequence',
  'kind',
  'acquirerId',
  'rrn',
  'approvalCode',
  'cardId',
  'panLast4',
  'processingCode',
  'amountMinor',
  'currency',
  'mcc',
  'merchantName',
  'merchantCity',
  'merchantCountry',
  'merchantId',
  'terminalId',
  'presentedAt',
] as const satisfies readonly (keyof ClearingPresentment)[];

const clean = (value: string | number) => String(value).replace(/[^\x20-\x7b\x7d\x7e]/g, ' ');

export interface ClearingFileHeader {
  fileId: string;
  businessDate: string;
  createdAt: string;
}

/** The file's text: `H|version|fileId|businessDate|createdAt`, `P|...` per presentment, `T|count|totalMinor`. */
export function writeClearingFile(header: ClearingFileHeader, presentments: ClearingPresentment[]): string {
  const lines = [['H', CLEARING_FILE_VERSION, header.fileId, header.businessDate, header.createdAt]];
  for (const presentment of presentments) {
    lines.push(['P', ...PRESENTMENT_FIELDS.map((field) => clean(presentment[field]))]);
  }
  const total = presentments.reduce((sum, presentment) => sum + presentment.amountMinor, 0);
  lines.push(['T', String(presentments.length), String(total)]);
  return lines.map((line) => line.join('|')).join('\n') + '\n';
}

/** Reads a file back (the importer's side, and the round-trip test); throws on a malformed or incomplete file. */
export function readClearingFile(
  content: string,
): ClearingFileHeader & { presentments: ClearingPresentment[] } {
  const lines = content.split('\n').filter((line) => line.length > 0);
  const header = lines[0]?.split('|');
  const trailer = lines.at(-1)?.split('|');
  if (header?.[0] !== 'H' || header[1] !== CLEARING_FILE_VERSION || header.length !== 5) {
    throw new Error('clearing file: bad header');
  }
  if (trailer?.[0] !== 'T' || trailer.length !== 3) throw new Error('clearing file: no trailer');
  const presentments = lines.slice(1, -1).map((line, index) => {
    const parts = line.split('|');
    if (parts[0] !== 'P' || parts.length !== PRESENTMENT_FIELDS.length + 1) {
      throw new Error(`clearing file: bad record ${index + 1}`);
    }
    const record: Record<string, string | number> = {};
    PRESENTMENT_FIELDS.forEach((field, i) => (record[field] = parts[i + 1]));
    record.sequence = Number(record.sequence);
    record.amountMinor = Number(record.amountMinor);
    return record as unknown as ClearingPresentment;
  });
  const total = presentments.reduce((sum, presentment) => sum + presentment.amountMinor, 0);
  if (Number(trailer[1]) !== presentments.length || Number(trailer[2]) !== total) {
    throw new Error('clearing file: trailer does not match its records');
  }
  return { fileId: header[2], businessDate: header[3], createdAt: header[4], presentments };
}
