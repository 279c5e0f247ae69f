import { decryptPinBlock, encryptPinBlock, pinBlockFormat0, pinOfBlock, SANDBOX_ZPK } from './pin-block';

const PAN = '4000009912345678';

describe('DE-052 PIN block (ISO 9564 format 0 under the zone PIN key)', () => {
  it('builds format 0 as the published example does, and reads its PIN back', () => {
    // ISO 9564-1 format 0 worked example: PIN 1234, PAN 43219876543210987.
    const block = pinBlockFormat0('1234', '43219876543210987');
    expect(block.toString('hex').toUpperCase()).toBe('0412AC89ABCDEF67');
    expect(pinOfBlock(block, '43219876543210987')).toBe('1234');
    expect(pinOfBlock(pinBlockFormat0('123456789012', PAN), PAN)).toBe('123456789012');
  });

  it('reads nothing from a malformed block or one built for another PAN', () => {
    expect(pinOfBlock(pinBlockFormat0('4321', PAN), '4000009912345578')).toBeNull();
    expect(pinOfBlock(Buffer.alloc(7), PAN)).toBeNull();
    expect(pinOfBlock(Buffer.from('FFFFFFFFFFFFFFFF', 'hex'), PAN)).toBeNull();
  });

  it('refuses a PIN that is not 4 to 12 digits', () => {
    expect(() => pinBlockFormat0('12a4', PAN)).toThrow(RangeError);
    expect(() => pinBlockFormat0('123', PAN)).toThrow(RangeError);
  });

  it('encrypts under a double or triple length ZPK and decrypts back to the clear block', () => {
    const clear = pinBlockFormat0('4321', PAN);
    for (const zpk of [SANDBOX_ZPK, `${SANDBOX_ZPK}0123456789ABCDEF`]) {
      const encrypted = encryptPinBlock(clear, zpk);
      expect(encrypted).toHaveLength(8);
      expect(encrypted.equals(clear)).toBe(false);
      expect(decryptPinBlock(encrypted, zpk)?.equals(clear)).toBe(true);
    }
    // A double length key K1K2 is K1K2K1 in triple length form.
    const k1k2k1 = `${SANDBOX_ZPK}${SANDBOX_ZPK.slice(0, 16)}`;
    expect(encryptPinBlock(clear, k1k2k1).equals(encryptPinBlock(clear, SANDBOX_ZPK))).toBe(true);
  });

  it('opens nothing readable under another key, and refuses a block that is not 8 bytes or a malformed key', () => {
    const encrypted = encryptPinBlock(pinBlockFormat0('4321', PAN), SANDBOX_ZPK);
    const other = decryptPinBlock(encrypted, 'F'.repeat(32)) as Buffer;
    expect(pinOfBlock(other, PAN)).toBeNull();
    expect(decryptPinBlock(Buffer.alloc(16), SANDBOX_ZPK)).toBeNull();
    expect(() => encryptPinBlock(pinBlockFormat0('4321', PAN), '0123')).toThrow(RangeError);
  });
});
