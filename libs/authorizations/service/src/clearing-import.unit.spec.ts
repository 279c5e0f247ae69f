import { DomainError } from '@cip/shared/contracts';
import type { Logger } from '@cip/shared/runtime';
import { writeClearingFile, type ClearingFile, type ClearingPresentment } from '@cip/simulator/contract';
import { Registry } from 'prom-client';
import type { ClearingException } from '@cip/authorizations/domain';
import { ClearingImport, ClearingImportMetrics } from './clearing-import';

// A clearing file of several lines: one that cannot apply is an operator exception, the others still apply.

const line = (sequence: number, rrn: string): ClearingPresentment => ({
  sequence,
  kind: 'presentment',
  acquirerId: '400001',
  rrn,
  approvalCode: 'ABC123',
  cardId: 'crd-1',
  panLast4: '4242',
  processingCode: '000000',
  amountMinor: 1000 * sequence,
  currency: 'USD',
  mcc: '5814',
  merchantName: 'Corner Cafe',
  merchantCity: 'Paris',
  merchantCountry: 'FR',
  merchantId: 'M1',
  terminalId: 'T1',
  presentedAt: '2026-11-23T10:00:00.000Z',
});

function fileOf(presentments: ClearingPresentment[]): ClearingFile {
  const header = {
    fileId: 'CLR-sandbox-20261123-000001',
    businessDate: '2026-11-23',
    createdAt: '2026-11-23T10:00:00.000Z',
  };
  return { ...header, presentments, content: writeClearingFile(header, presentments) };
}

function importer(failOn: Record<string, Error>) {
  const applied: string[] = [];
  const warnings: unknown[] = [];
  const recorded: ClearingException[] = [];
  const registry = new Registry();
  const sink = new ClearingImport(
    {
      clearPresentment: async (_environment, networkKey, presentment) => {
        const failure = failOn[presentment.rrn];
        if (failure) throw failure;
        applied.push(networkKey);
        return { authorizationId: `aut-${presentment.rrn}` };
      },
    },
    { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger,
    new ClearingImportMetrics(registry),
    {
      record: async (_environment, exception) => {
        recorded.push(exception);
      },
    },
  );
  return { sink, applied, warnings, registry, recorded };
}

describe('ClearingImport', () => {
  it('applies every line keyed by file and sequence, and leaves one that cannot apply as an exception', async () => {
    const { sink, applied, warnings, registry, recorded } = importer({
      RRN2: new DomainError('not_found', 'Authorization was not found'),
    });
    await sink.deliver('sandbox', fileOf([line(1, 'RRN1'), line(2, 'RRN2'), line(3, 'RRN3')]));

    expect(applied).toEqual([
      'clearing:CLR-sandbox-20261123-000001:1',
      'clearing:CLR-sandbox-20261123-000001:3',
    ]);
    expect(warnings).toEqual([
      expect.objectContaining({ sequence: 2, rrn: 'RRN2', reason: 'Authorization was not found' }),
    ]);
    const counted = await registry.getSingleMetricAsString('authorization_clearing_lines_total');
    expect(counted).toContain('result="exception"} 1');
    expect(counted).toContain('result="applied"} 2');
    // Recorded for operators (`authorizations clearing-exceptions`), without card data.
    expect(recorded).toEqual([
      expect.objectContaining({
        fileId: 'CLR-sandbox-20261123-000001',
        sequence: 2,
        rrn: 'RRN2',
        cardId: 'crd-1',
        amountMinor: 2000,
        code: 'not_found',
        reason: 'Authorization was not found',
      }),
    ]);
    expect(JSON.stringify(recorded)).not.toContain('4242');
  });

  it('fails the delivery on an infrastructure failure (safe to repeat), and refuses a malformed file whole', async () => {
    const { sink, applied } = importer({ RRN1: new Error('disk full') });
    await expect(sink.deliver('sandbox', fileOf([line(1, 'RRN1')]))).rejects.toThrow('disk full');

    const file = fileOf([line(1, 'RRN3'), line(2, 'RRN4')]);
    const truncated = {
      ...file,
      content: file.content
        .split('\n')
        .filter((_, i) => i !== 2)
        .join('\n'),
    };
    await expect(sink.deliver('sandbox', truncated)).rejects.toThrow('trailer does not match');
    expect(applied).toEqual([]);
  });
});
