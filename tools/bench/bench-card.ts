import { randomInt } from 'node:crypto';
import { cardExpiry, expiryYymm, generatePan, SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { readPlatformConfig } from '@cip/shared/runtime';

/** The merchant and terminal every authorization bench pays at. */
export const BENCH_ACCEPTOR = {
  name: 'Corner Cafe',
  city: 'Paris',
  country: 'FR',
  mcc: '5814',
  merchantId: 'SANDBOXMERCH001',
  terminalId: 'SBXTERM1',
};

/**
 * A made-up card for the link benches, drawn like the vault draws one: a PAN in the sandbox's configured BIN
 * (`CARD_BIN_SANDBOX`, else the test BIN) with its Luhn digit, an expiry the sandbox's card lifetime away,
 * a random CVV2. The benches never hold a literal card number.
 */
export function benchCard(now = new Date()) {
  const { bin, lifetimeMonths } = readPlatformConfig().cards.sandbox;
  const expiry = cardExpiry(now, lifetimeMonths);
  return {
    pan: generatePan(bin ?? SANDBOX_TEST_BIN, () => randomInt(10)),
    ...expiry,
    expiryYymm: expiryYymm(expiry),
    cvv2: String(randomInt(1000)).padStart(3, '0'),
  };
}
