import type { Environment, ProgramRules } from '@cip/shared/contracts';

/** A distributor's program configuration: the platform-wide ProgramRules of the callers it issues keys to. */
export type ProgramConfig = ProgramRules;

export interface ApiKeyRecord {
  keyId: string;
  environment: Environment;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  keyHash: string;
  /** Last four characters, to tell keys apart in listings. */
  last4: string;
  label: string | null;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
}

export const API_KEY_PREFIX: Record<Environment, string> = {
  sandbox: 'sk_sandbox_',
  production: 'sk_live_',
};

/** A sensible default allow-list (EEA, UK, Switzerland); each program overrides it. */
export const DEFAULT_ALLOWED_COUNTRIES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
  'IS',
  'LI',
  'NO',
  'GB',
  'CH',
];
