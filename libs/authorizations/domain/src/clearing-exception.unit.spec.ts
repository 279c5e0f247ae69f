import { deciderSpec } from '@cip/shared/testing';
import {
  type ClearingException,
  clearingExceptionDecider,
  clearingExceptionStreamId,
} from './clearing-exception';

const spec = deciderSpec(clearingExceptionDecider);
const NOW = '2026-11-23T10:00:00.000Z';
const exception: ClearingException = {
  fileId: 'CLR-sandbox-20261123-000001',
  sequence: 2,
  kind: 'presentment',
  acquirerId: '400001',
  rrn: '332710000002',
  approvalCode: '123456',
  cardId: 'crd-1',
  amountMinor: 1250,
  currency: 'EUR',
  merchantName: 'Corner Cafe',
  presentedAt: '2026-11-23T09:00:00.000Z',
  code: 'not_found',
  reason: 'Authorization aut-x was not found',
};
const record = { type: 'RecordClearingException' as const, data: { exception, now: NOW } };

describe('clearing exception decider', () => {
  it('records the line that could not apply, with when', () => {
    spec
      .given([])
      .when(record)
      .then([{ type: 'ClearingExceptionRecorded', data: { ...exception, recordedAt: NOW } }]);
  });

  it('records nothing for a line already recorded (the same file imported again)', () => {
    spec
      .given([{ type: 'ClearingExceptionRecorded', data: { ...exception, recordedAt: NOW } }])
      .when({ ...record, data: { exception, now: '2026-11-24T10:00:00.000Z' } })
      .thenNothing();
  });

  it('keeps one stream per file line', () => {
    expect(clearingExceptionStreamId(exception.fileId, 2)).toBe('clx-CLR-sandbox-20261123-000001-2');
  });
});
