import { writeSecret } from '@cip/shared/runtime';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as openpgp from 'openpgp';
import { generateOpenPgpKey, GooglePayOpcKeys, readPrivateKey } from './google-opaque-payment-card';

/**
 * The Google Pay OPC keys of an environment, kept under DATA_DIR/secrets (0600), made on first use:
 * `<environment>-google-pay-issuer-signing-key`, the issuer's OpenPGP signing key, and
 * `<environment>-google-pay-standin-google-key`, a stand-in for Google's encryption key (Google hands
 * issuers its public key at onboarding; the sandbox keeps the private half so it can play Google). Taking
 * Google's real key from configuration is not built yet.
 */
export function embeddedGooglePayKeys(dataDir: string): (environment: string) => Promise<GooglePayOpcKeys> {
  const loaded = new Map<string, Promise<GooglePayOpcKeys>>();
  return (environment) => {
    let keys = loaded.get(environment);
    if (!keys) {
      keys = loadKeys(dataDir, environment);
      loaded.set(environment, keys);
      // A failed load is tried again on the next use.
      keys.catch(() => loaded.delete(environment));
    }
    return keys;
  };
}

export const googlePayKeyNames = (environment: string) => ({
  issuerSigningKey: `${environment}-google-pay-issuer-signing-key`,
  standInGoogleKey: `${environment}-google-pay-standin-google-key`,
});

async function loadKeys(dataDir: string, environment: string): Promise<GooglePayOpcKeys> {
  const names = googlePayKeyNames(environment);
  const issuerSigningKey = await readPrivateKey(await armoredKey(dataDir, names.issuerSigningKey, 'issuer'));
  const google = await readPrivateKey(
    await armoredKey(dataDir, names.standInGoogleKey, 'google-pay-standin'),
  );
  return { issuerSigningKey, googleEncryptionKey: google.toPublic() as openpgp.PublicKey };
}

/** The armored key under DATA_DIR/secrets, generated (written atomically, 0600) when missing. */
async function armoredKey(dataDir: string, name: string, owner: string): Promise<string> {
  const path = join(dataDir, 'secrets', name);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = await generateOpenPgpKey(owner);
  writeSecret({ dataDir, name, value });
  return value;
}
