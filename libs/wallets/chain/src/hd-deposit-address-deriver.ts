import { loadOrCreateSecret } from '@cip/shared/runtime';
import { pbkdf2Sync } from 'node:crypto';
import { toHex } from 'viem';
import { english, generateMnemonic, HDKey, privateKeyToAddress } from 'viem/accounts';
import type { DepositAddressDeriver } from './chain.ports';

/** BIP-44 path of Ethereum external addresses; deposit address `i` is at `m/44'/60'/0'/0/i`. */
export const DEPOSIT_ADDRESS_PATH = "m/44'/60'/0'/0";

/** BIP-39 mnemonics have 12, 15, 18, 21 or 24 words (what @scure/bip39 accepts). */
const MNEMONIC_WORDS = [12, 15, 18, 21, 24];

/**
 * The BIP-39 seed of a mnemonic (no passphrase): PBKDF2-HMAC-SHA512, 2048 rounds, over the NFKD forms of the
 * mnemonic and of "mnemonic". Hand-written instead of viem's `mnemonicToAccount` (@scure/bip39) only for the
 * stretch: node:crypto runs it natively in about 2 ms where the pure-JS one took about 110 ms of start-up.
 */
function bip39Seed(mnemonic: string): Buffer {
  const normalized = mnemonic.normalize('NFKD');
  if (!MNEMONIC_WORDS.includes(normalized.split(' ').length)) throw new Error('Invalid mnemonic');
  return pbkdf2Sync(normalized, 'mnemonic'.normalize('NFKD'), 2048, 64, 'sha512');
}

/**
 * Deposit addresses derived with viem (BIP-39 mnemonic -> BIP-32 keys, @scure under the hood). The
 * mnemonic is stretched once, at construction; each address is then one child derivation.
 */
export class HdDepositAddressDeriver implements DepositAddressDeriver {
  private readonly external: HDKey;

  constructor(
    mnemonic: string,
    readonly chain: string,
  ) {
    this.external = HDKey.fromMasterSeed(bip39Seed(mnemonic)).derive(DEPOSIT_ADDRESS_PATH);
  }

  addressAt(index: number): string {
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) {
      throw new Error(`Deposit address index must be a non-hardened BIP-32 index, got ${index}`);
    }
    const child = this.external.deriveChild(index);
    if (!child.privateKey) throw new Error(`No key at index ${index}`);
    return privateKeyToAddress(toHex(child.privateKey));
  }
}

/** A fresh 24-word BIP-39 mnemonic (256 bits of entropy). */
export const generateDepositSeed = (): string => generateMnemonic(english, 256);

/**
 * The HD seed of an environment: `fromEnv` when the deployment supplies it (WALLET_HD_SEED_<ENV>),
 * otherwise generated on the embedded runtime's first start and kept under DATA_DIR/secrets.
 */
export function loadDepositSeed(options: { dataDir: string; environment: string; fromEnv?: string }): string {
  return loadOrCreateSecret({
    dataDir: options.dataDir,
    name: `${options.environment}-wallet-seed`,
    fromEnv: options.fromEnv,
    generate: generateDepositSeed,
  });
}
