import { mnemonicToAccount } from 'viem/accounts';
import { getAddress } from 'viem';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDepositSeed, HdDepositAddressDeriver, loadDepositSeed } from './hd-deposit-address-deriver';

// The standard test mnemonic of Hardhat/Foundry/ganache: its first accounts are public knowledge.
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

describe('HD deposit addresses', () => {
  const deriver = new HdDepositAddressDeriver(TEST_MNEMONIC, 'evm:31337');

  it("derives the BIP-44 addresses m/44'/60'/0'/0/i that every Ethereum wallet derives from the same mnemonic", () => {
    expect(deriver.addressAt(0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriver.addressAt(1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    for (const index of [2, 17, 1000]) {
      expect(deriver.addressAt(index)).toBe(
        mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index }).address,
      );
    }
  });

  it('returns checksummed addresses, distinct per index and per seed', () => {
    const address = deriver.addressAt(5);
    expect(getAddress(address)).toBe(address);
    expect(new Set([0, 1, 2, 3, 4, 5].map((i) => deriver.addressAt(i))).size).toBe(6);
    expect(new HdDepositAddressDeriver(generateDepositSeed(), 'x').addressAt(5)).not.toBe(address);
  });

  it('derives from a generated 24-word seed what viem derives from it, and refuses a mnemonic of a wrong length', () => {
    const seed = generateDepositSeed();
    expect(new HdDepositAddressDeriver(seed, 'x').addressAt(7)).toBe(
      mnemonicToAccount(seed, { addressIndex: 7 }).address,
    );
    expect(() => new HdDepositAddressDeriver('test test test', 'x')).toThrow('Invalid mnemonic');
  });

  it('refuses indexes that are not non-hardened BIP-32 indexes', () => {
    expect(() => deriver.addressAt(-1)).toThrow();
    expect(() => deriver.addressAt(2 ** 31)).toThrow();
    expect(() => deriver.addressAt(1.5)).toThrow();
  });

  it('generates a seed per environment on first use, keeps it private, and gives it back on the next start', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cip-seed-'));
    try {
      const sandbox = loadDepositSeed({ dataDir, environment: 'sandbox' });
      expect(sandbox.split(' ')).toHaveLength(24);
      expect(loadDepositSeed({ dataDir, environment: 'sandbox' })).toBe(sandbox);
      expect(loadDepositSeed({ dataDir, environment: 'production' })).not.toBe(sandbox);
      expect(statSync(join(dataDir, 'secrets', 'sandbox-wallet-seed')).mode & 0o777).toBe(0o600);
      expect(loadDepositSeed({ dataDir, environment: 'sandbox', fromEnv: TEST_MNEMONIC })).toBe(
        TEST_MNEMONIC,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
