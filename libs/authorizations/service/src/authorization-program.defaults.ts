import type { AuthorizationProgram } from '@cip/authorizations/domain';

/**
 * The authorization settings every program has until program settings are configurable per distributor
 * (program settings CLI comes next): the sandbox's fixed FX rates (USD per unit), a 2% FX fee, no ATM or
 * authorization fee, clearings up to 20% above the authorization (tips), holds kept 7 days.
 */
export const DEFAULT_AUTHORIZATION_PROGRAM: AuthorizationProgram = Object.freeze({
  fxRates: Object.freeze({ EUR: '1.08', GBP: '1.27', CHF: '1.13', CAD: '0.73', JPY: '0.0067' }),
  fees: Object.freeze({ fxRate: 20_000 }),
  clearingTolerance: 200_000,
  holdExpiryDays: 7,
});
