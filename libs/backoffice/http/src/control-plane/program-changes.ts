import {
  parseCountries,
  parseFraction,
  parseFxRateValue,
  parseThreeDsDeadline,
  parseUsdAmount,
  type ProgramChanges,
  ProgramSettingError,
} from '@cip/distributors/contract';
import { ApiError } from '@cip/gateway/http';
import type { ApiFieldError } from '@cip/shared/contracts';
import type { ConfigureProgramDto } from './distributors.dto';

/**
 * The operator API's program settings (the texts `cli distributors configure` takes) as the control plane's
 * changes, parsed by the distributors contract; every setting written wrong is one `details` entry of a
 * `400 validation_error`.
 */
export function programChangesOf(body: ConfigureProgramDto): ProgramChanges {
  const problems: ApiFieldError[] = [];
  const parsed = <T>(
    field: string,
    value: string | undefined,
    parse: (value: string) => T,
  ): T | undefined => {
    if (value === undefined) return undefined;
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof ProgramSettingError)) throw error;
      problems.push({ field, message: `${field}: ${error.message}` });
      return undefined;
    }
  };
  let fxRate: Record<string, string | null> | undefined;
  if (body.fxRates !== undefined) {
    fxRate = {};
    const entries = Object.entries(body.fxRates);
    if (entries.length > 200)
      problems.push({ field: 'fxRates', message: 'fxRates takes at most 200 currencies' });
    for (const [code, rate] of entries.slice(0, 200)) {
      const currency = code.toUpperCase();
      if (rate !== null && typeof rate !== 'string') {
        problems.push({ field: `fxRates.${currency}`, message: 'a rate is a decimal text (1.08) or null' });
        continue;
      }
      const value = parsed(`fxRates.${currency}`, rate ?? 'none', (text) => parseFxRateValue(currency, text));
      if (value !== undefined) fxRate[currency] = value;
    }
  }
  const changes: ProgramChanges = {
    countries:
      body.countries &&
      parsed('countries', body.countries.join(','), (text) => parseCountries(text.split(','))),
    b2b: body.b2b,
    prepaid: body.prepaid,
    kycImport: body.kycImport,
    threeDsDeadlineSeconds: parsed('threeDsDeadline', body.threeDsDeadline, parseThreeDsDeadline),
    feeFx: parsed('feeFx', body.feeFx, parseFraction),
    feeAtm: parsed('feeAtm', body.feeAtm, parseUsdAmount),
    feeAuth: parsed('feeAuth', body.feeAuth, parseUsdAmount),
    fxRate,
    clearingTolerance: parsed('clearingTolerance', body.clearingTolerance, parseFraction),
    holdExpiryDays: body.holdExpiryDays,
    settlementAddress: body.settlementAddress === null ? 'none' : body.settlementAddress,
  };
  if (problems.length > 0)
    throw new ApiError('validation_error', 'Some program settings are invalid; see details', problems);
  return changes;
}
