import { fromBase64UrlJson, toBase64UrlJson } from './emv-3ds';
import { readEmvMessage } from './emv-3ds.schemas';

const TRANS_ID = '11111111-1111-4111-8111-111111111111';
const DS_TRANS_ID = '22222222-2222-4222-8222-222222222222';
const ACS_TRANS_ID = '33333333-3333-4333-8333-333333333333';

/** An app-channel payment AReq with every element A.4 requires for it. */
const areq = (overrides: Record<string, unknown> = {}) => ({
  messageType: 'AReq',
  messageVersion: '2.2.0',
  messageCategory: '01',
  deviceChannel: '01',
  threeDSServerTransID: TRANS_ID,
  dsTransID: DS_TRANS_ID,
  dsURL: 'https://ds.example/rreq',
  dsReferenceNumber: 'DS-REF',
  threeDSServerRefNumber: '3DSS-REF',
  threeDSServerURL: 'https://3ds-server.example/notify',
  threeDSRequestorID: 'REQ-1',
  threeDSRequestorName: 'Requestor',
  threeDSRequestorURL: 'https://merchant.example',
  acctNumber: '4242424242424242',
  cardExpiryDate: '2911',
  purchaseAmount: '1999',
  purchaseCurrency: '978',
  purchaseExponent: '2',
  purchaseDate: '20261123101500',
  acquirerBIN: '400001',
  acquirerMerchantID: 'MERCH1',
  merchantName: 'Shop',
  mcc: '5999',
  merchantCountryCode: '250',
  sdkAppID: TRANS_ID,
  sdkTransID: DS_TRANS_ID,
  sdkReferenceNumber: 'SDK',
  sdkMaxTimeout: '05',
  sdkEncData: 'x',
  sdkEphemPubKey: { kty: 'EC' },
  deviceRenderOptions: { sdkInterface: '03' },
  ...overrides,
});

const without = (message: Record<string, unknown>, ...names: string[]) =>
  Object.fromEntries(Object.entries(message).filter(([name]) => !names.includes(name)));

const browser = {
  deviceChannel: '02',
  threeDSCompInd: 'Y',
  notificationURL: 'https://merchant.example/cres',
  browserAcceptHeader: 'text/html',
  browserLanguage: 'fr-FR',
  browserUserAgent: 'Mozilla/5.0',
};

const rreq = (overrides: Record<string, unknown> = {}) => ({
  messageType: 'RReq',
  messageVersion: '2.2.0',
  messageCategory: '01',
  threeDSServerTransID: TRANS_ID,
  dsTransID: DS_TRANS_ID,
  acsTransID: ACS_TRANS_ID,
  transStatus: 'Y',
  authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
  eci: '05',
  authenticationType: '04',
  interactionCounter: '01',
  ...overrides,
});

const rres = (overrides: Record<string, unknown> = {}) => ({
  messageType: 'RRes',
  messageVersion: '2.2.0',
  threeDSServerTransID: TRANS_ID,
  dsTransID: DS_TRANS_ID,
  acsTransID: ACS_TRANS_ID,
  resultsStatus: '01',
  ...overrides,
});

const errorOf = (result: ReturnType<typeof readEmvMessage>) => ('error' in result ? result.error : null);

describe('EMV 3DS 2.2 message schemas', () => {
  describe('AReq', () => {
    it.each([
      ['an app payment', areq()],
      [
        'a browser payment',
        without(
          areq(browser),
          'sdkAppID',
          'sdkTransID',
          'sdkReferenceNumber',
          'sdkMaxTimeout',
          'sdkEncData',
          'sdkEphemPubKey',
          'deviceRenderOptions',
        ),
      ],
      [
        'an app card verification (no purchase)',
        without(
          areq({ messageCategory: '02' }),
          'purchaseAmount',
          'purchaseCurrency',
          'purchaseExponent',
          'purchaseDate',
          'acquirerBIN',
          'acquirerMerchantID',
          'merchantName',
          'mcc',
          'merchantCountryCode',
        ),
      ],
      ['one with elements the ACS does not read', areq({ addrMatch: 'Y', messageExtension: [] })],
    ])('accepts %s', (_name, message) => {
      expect(readEmvMessage('AReq', message, 'A')).toEqual({ message });
    });

    it('names every missing required element (201)', () => {
      expect(errorOf(readEmvMessage('AReq', without(areq(), 'acctNumber', 'dsURL'), 'A'))).toEqual({
        messageType: 'Erro',
        messageVersion: '2.2.0',
        errorComponent: 'A',
        errorCode: '201',
        errorDescription: 'Required data element missing',
        errorDetail: 'dsURL,acctNumber',
        errorMessageType: 'AReq',
        threeDSServerTransID: TRANS_ID,
        dsTransID: DS_TRANS_ID,
      });
    });

    it.each([
      ['a payment without its amount', without(areq(), 'purchaseAmount'), 'purchaseAmount'],
      ['an app request without its SDK data', without(areq(), 'sdkEncData'), 'sdkEncData'],
      [
        'a browser request without its notification URL',
        without(areq(browser), 'notificationURL'),
        'notificationURL',
      ],
      ['no expiry', without(areq(), 'cardExpiryDate'), 'cardExpiryDate'],
    ])('requires the conditional elements: %s', (_name, message, detail) => {
      expect(errorOf(readEmvMessage('AReq', message, 'A'))).toMatchObject({
        errorCode: '201',
        errorDetail: detail,
      });
    });

    it.each([
      ['acctNumber', { acctNumber: '4242-4242' }],
      ['cardExpiryDate', { cardExpiryDate: '2913' }],
      ['purchaseCurrency', { purchaseCurrency: 'EUR' }],
      ['purchaseAmount', { purchaseAmount: 19.99 }],
      ['deviceChannel', { deviceChannel: '04' }],
      ['dsURL', { dsURL: 'ftp://ds.example' }],
      ['merchantName', { merchantName: 'x'.repeat(41) }],
    ])('names an element of a wrong format (203): %s', (detail, overrides) => {
      expect(errorOf(readEmvMessage('AReq', areq(overrides), 'A'))).toMatchObject({
        errorCode: '203',
        errorDetail: detail,
      });
    });

    it('never echoes a malformed transaction id, nor the account number', () => {
      const error = errorOf(
        readEmvMessage('AReq', areq({ threeDSServerTransID: 'abc', acctNumber: 'x' }), 'A'),
      );
      expect(error).toMatchObject({ errorCode: '203', errorDetail: 'threeDSServerTransID,acctNumber' });
      expect(error).not.toHaveProperty('threeDSServerTransID');
      expect(JSON.stringify(error)).not.toContain('4242');
    });

    it('answers 102 for another protocol version and 101 for what is not an AReq', () => {
      expect(errorOf(readEmvMessage('AReq', areq({ messageVersion: '2.1.0' }), 'A'))).toMatchObject({
        errorCode: '102',
      });
      expect(errorOf(readEmvMessage('AReq', areq({ messageType: 'CReq' }), 'A'))).toMatchObject({
        errorCode: '101',
        errorDetail: 'messageType',
      });
      for (const notAnObject of [null, 'AReq', 42, [areq()]]) {
        expect(errorOf(readEmvMessage('AReq', notAnObject, 'A'))).toMatchObject({ errorCode: '101' });
      }
    });
  });

  describe('RReq', () => {
    it('accepts a Y with its authentication value and ECI, and an N with its reason', () => {
      expect(readEmvMessage('RReq', rreq(), 'D')).toEqual({ message: rreq() });
      const refused = without(
        rreq({ transStatus: 'N', transStatusReason: '01' }),
        'authenticationValue',
        'eci',
      );
      expect(readEmvMessage('RReq', refused, 'D')).toEqual({ message: refused });
    });

    it('requires the authentication value of a Y and the reason of an N (201), from the DS (D)', () => {
      expect(errorOf(readEmvMessage('RReq', without(rreq(), 'authenticationValue'), 'D'))).toMatchObject({
        errorComponent: 'D',
        errorCode: '201',
        errorDetail: 'authenticationValue',
        errorMessageType: 'RReq',
        acsTransID: ACS_TRANS_ID,
      });
      expect(errorOf(readEmvMessage('RReq', rreq({ transStatus: 'N' }), 'D'))).toMatchObject({
        errorCode: '201',
        errorDetail: 'transStatusReason',
      });
    });

    it('refuses a transStatus an RReq cannot carry (203)', () => {
      expect(errorOf(readEmvMessage('RReq', rreq({ transStatus: 'D' }), 'D'))).toMatchObject({
        errorCode: '203',
        errorDetail: 'transStatus',
      });
    });
  });

  describe('CReq', () => {
    const creq = (overrides: Record<string, unknown> = {}) => ({
      messageType: 'CReq',
      messageVersion: '2.2.0',
      threeDSServerTransID: TRANS_ID,
      acsTransID: ACS_TRANS_ID,
      challengeWindowSize: '05',
      ...overrides,
    });

    it('accepts a browser challenge request, and reads it from its base64url form field', () => {
      expect(readEmvMessage('CReq', creq(), 'A')).toEqual({ message: creq() });
      expect(fromBase64UrlJson(toBase64UrlJson(creq()))).toEqual(creq());
    });

    it('refuses a missing transaction id (201) and a window size out of the list (203)', () => {
      expect(errorOf(readEmvMessage('CReq', without(creq(), 'acsTransID'), 'A'))).toMatchObject({
        errorCode: '201',
        errorDetail: 'acsTransID',
      });
      expect(errorOf(readEmvMessage('CReq', creq({ challengeWindowSize: '06' }), 'A'))).toMatchObject({
        errorCode: '203',
        errorDetail: 'challengeWindowSize',
      });
    });

    it('reads nothing from a form field that is not base64url JSON', () => {
      for (const field of [
        undefined,
        '',
        'not base64!',
        Buffer.from('not json').toString('base64url'),
        'x'.repeat(9000),
      ]) {
        expect(fromBase64UrlJson(field)).toBeNull();
      }
    });
  });

  describe('RRes', () => {
    it('accepts an acknowledgement', () => {
      expect(readEmvMessage('RRes', rres(), 'A')).toEqual({ message: rres() });
    });

    it('refuses a missing or unknown results status', () => {
      expect(errorOf(readEmvMessage('RRes', without(rres(), 'resultsStatus'), 'A'))).toMatchObject({
        errorCode: '201',
        errorDetail: 'resultsStatus',
      });
      expect(errorOf(readEmvMessage('RRes', rres({ resultsStatus: '09' }), 'A'))).toMatchObject({
        errorCode: '203',
        errorDetail: 'resultsStatus',
      });
    });
  });
});
