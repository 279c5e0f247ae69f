import { DE048, F, IsoCodec, IsoMessage, readSubelements } from '@cip/shared/iso8583';
import {
  authorizationRequest,
  cardAcceptorNameLocation,
  reversalMessage,
  standInAdvice,
  type AcquirerTransaction,
} from './acquirer-messages';

const codec = new IsoCodec();
const roundTrip = (message: IsoMessage) => codec.decode(codec.encode(message));

const tx: AcquirerTransaction = {
  acquirerId: '400001',
  acquirerCountry: '840',
  stan: '000042',
  rrn: '632700000042',
  processingCode: '000000',
  amountMinor: 1250,
  currencyNumeric: '978',
  acceptor: {
    name: 'Café de la Gare',
    city: 'Paris',
    country: 'fr',
    mcc: '5814',
    merchantId: 'SANDBOXMERCH001',
    terminalId: 'SBXTERM1',
  },
  entryMode: 'ecommerce',
  at: new Date('2026-11-23T09:08:07Z'),
};
const card = { pan: '4000009912345678', expMonth: 3, expYear: 2029, cvv2: '321' };

describe('the acquirer messages the simulator sends', () => {
  it('builds an 0100 that encodes in the platform dialect with every field an issuer decides on', () => {
    const decoded = roundTrip(authorizationRequest(tx, card));
    expect(decoded.mti).toBe('0100');
    expect(decoded.get(F.PAN)).toBe(card.pan);
    expect(decoded.get(F.PROCESSING_CODE)).toBe('000000');
    expect(decoded.get(F.AMOUNT_TRANSACTION)).toBe('000000001250');
    expect(decoded.get(F.TRANSMISSION_DATE_TIME)).toBe('1123090807');
    expect(decoded.get(F.LOCAL_TIME)).toBe('090807');
    expect(decoded.get(F.LOCAL_DATE)).toBe('1123');
    expect(decoded.get(F.EXPIRY)).toBe('2903');
    expect(decoded.get(F.MCC)).toBe('5814');
    expect(decoded.get(F.POS_ENTRY_MODE)).toBe('810');
    expect(decoded.get(F.POS_CONDITION_CODE)).toBe('59');
    expect(decoded.get(F.ACQUIRING_INSTITUTION_ID)).toBe('400001');
    expect(decoded.get(F.STAN)).toBe('000042');
    expect(decoded.get(F.RRN)).toBe('632700000042');
    expect(decoded.get(F.CURRENCY_TRANSACTION)).toBe('978');
    expect(decoded.get(F.CVV2)).toBe('321');
    expect(decoded.has(F.PIN_DATA)).toBe(false);
  });

  it('carries a 3-D Secure authentication in DE-048: subelement 42 the ECI, 43 the value', () => {
    const authenticationValue = 'q83vEjRWeJCrze8SNFZ4kKvN7xI=';
    const decoded = roundTrip(
      authorizationRequest({ ...tx, threeDs: { authenticationValue, eci: '05' } }, card),
    );
    expect(readSubelements(decoded.get(F.ADDITIONAL_DATA_PRIVATE))).toEqual({
      [DE048.ECI]: '05',
      [DE048.AUTHENTICATION_VALUE]: authenticationValue,
    });
    expect(roundTrip(authorizationRequest(tx, card)).has(F.ADDITIONAL_DATA_PRIVATE)).toBe(false);
  });

  it('lays out DE-043 as name (25), city (13), alpha-2 country, in printable ASCII', () => {
    const field = cardAcceptorNameLocation(tx.acceptor);
    expect(field).toHaveLength(40);
    expect(field).toBe('Cafe de la Gare          Paris        FR');
  });

  it('sends the PIN block and no CVV2 for a chip read', () => {
    const pinBlock = Buffer.alloc(8, 7);
    const decoded = roundTrip(authorizationRequest({ ...tx, entryMode: 'chip' }, { ...card, pinBlock }));
    expect(decoded.getBinary(F.PIN_DATA)?.equals(pinBlock)).toBe(true);
    expect(decoded.has(F.CVV2)).toBe(false);
    expect(decoded.get(F.POS_ENTRY_MODE)).toBe('051');
    expect(decoded.get(F.POS_CONDITION_CODE)).toBe('00');
  });

  it('never shows the PAN, expiry, CVV2 or PIN block when a message is logged', () => {
    const logged = JSON.stringify(authorizationRequest(tx, { ...card, pinBlock: Buffer.alloc(8, 7) }));
    expect(logged).not.toContain(card.pan);
    expect(logged).not.toContain('"2903"');
    expect(logged).not.toContain('"321"');
  });

  it('makes the stand-in advice an 0120 of the same transaction with the decision and the reason, without CVV2 or PIN', () => {
    const request = authorizationRequest(tx, { ...card, pinBlock: Buffer.alloc(8, 7) });
    const advice = roundTrip(
      standInAdvice(request, { responseCode: '00', approvalCode: '123456', reason: 'STIP:timeout' }),
    );
    expect(advice.mti).toBe('0120');
    expect(advice.get(F.STAN)).toBe('000042');
    expect(advice.get(F.RRN)).toBe('632700000042');
    expect(advice.get(F.PAN)).toBe(card.pan);
    expect(advice.get(F.RESPONSE_CODE)).toBe('00');
    expect(advice.get(F.APPROVAL_CODE)).toBe('123456');
    expect(advice.get(F.ADVICE_REASON)).toBe('STIP:timeout');
    expect(advice.has(F.CVV2)).toBe(false);
    expect(advice.has(F.PIN_DATA)).toBe(false);
    const declined = standInAdvice(request, { responseCode: '61', reason: 'STIP:unavailable' });
    expect(declined.has(F.APPROVAL_CODE)).toBe(false);
  });

  it('builds a full 0400 naming the original in DE-090 and keeping the RRN, without DE-095', () => {
    const reversal = roundTrip(
      reversalMessage(tx, card, { stan: '000050', at: new Date('2026-11-23T09:10:00Z'), remainingMinor: 0 }),
    );
    expect(reversal.mti).toBe('0400');
    expect(reversal.get(F.STAN)).toBe('000050');
    expect(reversal.get(F.RRN)).toBe(tx.rrn);
    expect(reversal.get(F.ORIGINAL_DATA_ELEMENTS)).toBe(
      '0100' + '000042' + '1123090807' + '00000400001' + '00000000000',
    );
    expect(reversal.has(F.REPLACEMENT_AMOUNTS)).toBe(false);
    expect(reversal.has(F.ADVICE_REASON)).toBe(false);
  });

  it('carries the new total in DE-095 for a partial reversal, and REVERSAL:timeout in an 0420', () => {
    const partial = roundTrip(
      reversalMessage(tx, card, { stan: '000051', at: tx.at, remainingMinor: 750 }, '0420'),
    );
    expect(partial.mti).toBe('0420');
    expect(partial.get(F.REPLACEMENT_AMOUNTS)).toBe('000000000750000000000750C00000000C00000000');
    expect(partial.get(F.ADVICE_REASON)).toBe('REVERSAL:timeout');
  });
});
