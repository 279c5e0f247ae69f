import { encryptPinBlock, F, IsoMessage, pinBlockFormat0, SANDBOX_ZPK } from '@cip/shared/iso8583';
import { authorizationIdOf } from '../authorizations.service';
import { readAuthorizationRequest, readReversalRequest, UnreadableMessage } from './iso-issuer-messages';
import { approvalCodeOf, responseCodeOf } from './response-codes';

const PAN = '4000009912345678';

const request = (mti: string, fields: Record<number, string | Buffer | undefined> = {}) =>
  new IsoMessage(mti, {
    [F.PAN]: PAN,
    [F.PROCESSING_CODE]: '000000',
    [F.AMOUNT_TRANSACTION]: '000000001050',
    [F.STAN]: '000042',
    [F.EXPIRY]: '2911',
    [F.MCC]: '5812',
    [F.ACQUIRING_INSTITUTION_ID]: '12345678',
    [F.RRN]: '332713000042',
    [F.MERCHANT_ID]: 'MERCHANT0000001',
    [F.CARD_ACCEPTOR_NAME_LOCATION]: `${'CORNER CAFE'.padEnd(25)}${'PARIS'.padEnd(13)}FR`,
    [F.CURRENCY_TRANSACTION]: '978',
    ...fields,
  });

describe("the issuer's reading of the network's messages", () => {
  it('reads an 0100: the network key, the card, the merchant of DE-043 and the amount in DE-049 currency', () => {
    expect(readAuthorizationRequest(request('0100', { [F.CVV2]: '123' }), SANDBOX_ZPK)).toEqual({
      mti: '0100',
      reference: { acquirerId: '12345678', rrn: '332713000042', stan: '000042' },
      networkKey: '0100:12345678:000042:332713000042',
      pan: PAN,
      expiry: '2911',
      cvv2: '123',
      kind: 'payment',
      charge: {
        merchant: { name: 'CORNER CAFE', city: 'PARIS', country: 'FR', mcc: '5812', mid: 'MERCHANT0000001' },
        merchantAmount: 1050,
        merchantCurrency: 'EUR',
      },
    });
  });

  it('reads a refund (processing code 20) and a stand-in advice with the decision the network took', () => {
    expect(
      readAuthorizationRequest(request('0100', { [F.PROCESSING_CODE]: '200000' }), SANDBOX_ZPK).kind,
    ).toBe('refund');
    const advice = readAuthorizationRequest(
      request('0120', { [F.RESPONSE_CODE]: '00', [F.ADVICE_REASON]: 'STIP:unavailable' }),
      SANDBOX_ZPK,
    );
    expect(advice).toMatchObject({ advice: 'stand_in', networkDecision: '00' });
    expect(readAuthorizationRequest(request('0120', { [F.RESPONSE_CODE]: '00' }), SANDBOX_ZPK)).toMatchObject(
      {
        advice: 'offline',
      },
    );
  });

  it('reads the 3-D Secure value and ECI of an e-commerce payment (DE-048 subelements 43 and 42) only', () => {
    const value = 'q83vEjRWeJCrze8SNFZ4kKvN7xI=';
    const de048 = `4202054328${value}`;
    const read = (fields: Record<number, string>) =>
      readAuthorizationRequest(
        request('0100', { [F.ADDITIONAL_DATA_PRIVATE]: de048, ...fields }),
        SANDBOX_ZPK,
      );
    expect(read({ [F.POS_ENTRY_MODE]: '810' }).threeDs).toEqual({ authenticationValue: value, eci: '05' });
    expect(read({ [F.POS_ENTRY_MODE]: '051' }).threeDs).toBeUndefined();
    expect(read({ [F.POS_ENTRY_MODE]: '810', [F.PROCESSING_CODE]: '200000' }).threeDs).toBeUndefined();
    expect(
      readAuthorizationRequest(
        request('0100', { [F.POS_ENTRY_MODE]: '810', [F.ADDITIONAL_DATA_PRIVATE]: `4328${value}` }),
        SANDBOX_ZPK,
      ).threeDs,
    ).toEqual({ authenticationValue: value, eci: '05' });
  });

  it('reads the purchase a refund names (DE-048 subelement 63), ignores it on a payment, and refuses a DE-048 that does not parse', () => {
    const naming = (processingCode: string, de048: string) =>
      readAuthorizationRequest(
        request('0100', { [F.PROCESSING_CODE]: processingCode, [F.ADDITIONAL_DATA_PRIVATE]: de048 }),
        SANDBOX_ZPK,
      );
    expect(naming('200000', '6312332713000041')).toMatchObject({
      kind: 'refund',
      originalRrn: '332713000041',
    });
    expect(naming('000000', '6312332713000041')).not.toHaveProperty('originalRrn');
    expect(() => naming('200000', '6399332713000041')).toThrow(UnreadableMessage);
  });

  it('refuses a request without what identifies it (no message is recorded for it)', () => {
    expect(() => readAuthorizationRequest(request('0100', { [F.RRN]: undefined }), SANDBOX_ZPK)).toThrow(
      UnreadableMessage,
    );
    expect(() => readAuthorizationRequest(request('0100', { [F.PAN]: undefined }), SANDBOX_ZPK)).toThrow(
      UnreadableMessage,
    );
  });

  it('reads a partial reversal’s new total from DE-095, and a full one without it', () => {
    const partial = request('0400', {
      [F.REPLACEMENT_AMOUNTS]: `${'000000000300'}${'0'.repeat(12)}C00000000C00000000`,
    });
    expect(readReversalRequest(partial)).toMatchObject({
      networkKey: '0400:12345678:000042:332713000042',
      replacementAmount: 300,
      currency: 'EUR',
    });
    expect(readReversalRequest(request('0420')).replacementAmount).toBeUndefined();
  });

  it('reads the PIN of DE-052 decrypted under the ZPK, and an empty (wrong) PIN from a block it cannot open', () => {
    const withPin = (block: Buffer) =>
      readAuthorizationRequest(request('0100', { [F.PIN_DATA]: block }), SANDBOX_ZPK);
    expect(withPin(encryptPinBlock(pinBlockFormat0('4321', PAN), SANDBOX_ZPK)).pin).toBe('4321');
    // In clear, under another key, or for another PAN: no PIN, so the issuer declines it as wrong (55).
    expect(withPin(pinBlockFormat0('4321', PAN)).pin).toBe('');
    expect(withPin(encryptPinBlock(pinBlockFormat0('4321', PAN), 'F'.repeat(32))).pin).toBe('');
    expect(withPin(encryptPinBlock(pinBlockFormat0('4321', '4000009912345578'), SANDBOX_ZPK)).pin).toBe('');
    expect(withPin(Buffer.alloc(7)).pin).toBe('');
    expect(readAuthorizationRequest(request('0100'), SANDBOX_ZPK).pin).toBeUndefined();
  });
});

describe('the answers', () => {
  it.each([
    [{ decision: 'confirmed' }, '00'],
    [{ decision: 'rejected', declineReasonCode: 'insufficientFund' }, '51'],
    [
      { decision: 'rejected', declineReasonCode: 'notActive', detail: 'card expired at the end of 2026-01' },
      '54',
    ],
    [{ decision: 'rejected', declineReasonCode: 'notActive', detail: 'card is frozen' }, '62'],
    [{ decision: 'rejected', declineReasonCode: 'failedControl', detail: 'MCC 6051 is blocked' }, '57'],
    [
      { decision: 'rejected', declineReasonCode: 'failedControl', detail: '50 USD exceeds the daily limit' },
      '61',
    ],
    [{ decision: 'rejected', declineReasonCode: 'other', detail: 'wrong PIN' }, '55'],
    [{ decision: 'rejected', declineReasonCode: 'other', detail: 'wrong CVV2' }, 'N7'],
    [{ decision: 'rejected', declineReasonCode: 'other', detail: 'THB has no rate' }, '05'],
    [
      {
        decision: 'rejected',
        declineReasonCode: 'other',
        detail: '3-D Secure authentication value not verified: mismatch',
      },
      '63',
    ],
  ] as const)('answers %j with %s', (decided, code) => {
    expect(responseCodeOf(decided)).toBe(code);
  });

  it('gives every message of a transaction one authorization id (acquirer and RRN), an aut-<uuid>', () => {
    const id = authorizationIdOf('sandbox', { acquirerId: '12345678', rrn: '332713000042' });
    expect(id).toMatch(/^aut-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(authorizationIdOf('sandbox', { acquirerId: '12345678', rrn: '332713000042' })).toBe(id);
    expect(authorizationIdOf('sandbox', { acquirerId: '12345679', rrn: '332713000042' })).not.toBe(id);
    expect(authorizationIdOf('production', { acquirerId: '12345678', rrn: '332713000042' })).not.toBe(id);
    expect(approvalCodeOf(id)).toMatch(/^[0-9A-F]{6}$/);
  });
});
