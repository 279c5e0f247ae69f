import { CARD_CURRENCY } from '../authorization.types';
import { MINOR_PER_CENT, type MerchantCharge } from '../money';

/**
 * The charge a distributor's partial approval of `approvedMinor` (wallet minor units) stands for, or null
 * when none can be answered. The ISO 8583 answer (response code 10) carries the approved amount in DE-004,
 * the transaction currency: only a USD merchant's charge converts both ways exactly, so another currency's
 * partial approval is declined (as an issuer declines one a merchant cannot take). Rounded down to the cent,
 * the network's unit: a partial approval never exceeds what the distributor approved.
 */
export function partialCharge(request: MerchantCharge, approvedMinor: number): MerchantCharge | null {
  if (request.merchantCurrency !== CARD_CURRENCY) return null;
  const cents = Math.floor(approvedMinor / MINOR_PER_CENT);
  if (cents <= 0 || cents >= request.merchantAmount) return null;
  return { ...request, merchantAmount: cents };
}
