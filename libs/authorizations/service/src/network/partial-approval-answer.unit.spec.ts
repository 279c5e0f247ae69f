import type { AuthorizationDecided } from '@cip/authorizations/domain';
import { F, IsoMessage } from '@cip/shared/iso8583';
import { answer } from './iso-issuer-messages';
import { networkAnswerOf, RESPONSE } from './response-codes';

// A distributor's partial approval on the network link: response code 10, the approved amount in DE-004
// (and DE-006 when the request carried it), an approval code; a retry gets the same answer.

const decided = (overrides: Partial<AuthorizationDecided['data']> = {}) =>
  ({
    authorizationId: 'aut-0b9f5a2e-6a3c-8f0e-9d55-0c6b1f1d2a10',
    decision: 'confirmed',
    amount: 20_000_000,
    ...overrides,
  }) as AuthorizationDecided['data'];

const request = (fields: Record<number, string> = {}) =>
  new IsoMessage('0100', {
    [F.PROCESSING_CODE]: '000000',
    [F.AMOUNT_TRANSACTION]: '000000004000',
    [F.STAN]: '000001',
    [F.RRN]: '632700000001',
    [F.CURRENCY_TRANSACTION]: '840',
    ...fields,
  });

describe('partial approval on the network link', () => {
  it('a partial approval answers 10 with an approval code and the approved amount', () => {
    const partial = networkAnswerOf(decided({ requestedAmount: 40_000_000 }));
    expect(partial).toEqual({
      responseCode: RESPONSE.partialApproval,
      authorizationId: 'aut-0b9f5a2e-6a3c-8f0e-9d55-0c6b1f1d2a10',
      approvalCode: expect.stringMatching(/^[0-9A-F]{6}$/),
      approvedAmount: 20_000_000,
    });
    expect(networkAnswerOf(decided())).toEqual({
      responseCode: RESPONSE.approved,
      authorizationId: 'aut-0b9f5a2e-6a3c-8f0e-9d55-0c6b1f1d2a10',
      approvalCode: partial.approvalCode,
    });
  });

  it('the 0110 carries the approved cents in DE-004, and in DE-006 when the request had it', () => {
    const partial = answer(request(), '10', 'A1B2C3', 20_000_000);
    expect(partial.get(F.RESPONSE_CODE)).toBe('10');
    expect(partial.get(F.AMOUNT_TRANSACTION)).toBe('000000002000');
    expect(partial.get(F.AMOUNT_CARDHOLDER_BILLING)).toBeUndefined();
    const billed = answer(
      request({ [F.AMOUNT_CARDHOLDER_BILLING]: '000000004000' }),
      '10',
      'A1B2C3',
      20_000_000,
    );
    expect(billed.get(F.AMOUNT_CARDHOLDER_BILLING)).toBe('000000002000');
    expect(answer(request(), '00', 'A1B2C3').get(F.AMOUNT_TRANSACTION)).toBe('000000004000');
  });
});
