import type { CardVault } from '@cip/cards/vault';
import type { Caller } from '@cip/shared/contracts';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordVirtualCard } from './card.spec-fixtures';
import { CardSandboxService } from './card-sandbox.service';

const DISTRIBUTOR = 'dst-sandbox';
const caller = (overrides: Partial<Caller> = {}): Caller => ({
  distributorId: DISTRIBUTOR,
  environment: 'sandbox',
  requestId: 'req-1',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
  ...overrides,
});

describe('the card details the sandbox card network plays the cardholder with', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let service: CardSandboxService;
  const revealed: string[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-card-sandbox-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir });
    const vault = {
      async revealForHostedPage(vaultRef: string) {
        revealed.push(vaultRef);
        return { pan: '4000009912344242', cvv2: '987', expMonth: 11, expYear: 2029 };
      },
    } as unknown as CardVault;
    service = new CardSandboxService({
      eventStore: environmentStores(infrastructure).eventStore,
      vault: () => vault,
    });
  });
  afterEach(async () => {
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const createCard = () =>
    recordVirtualCard(infrastructure.scope('sandbox').eventStore, {
      distributorId: DISTRIBUTOR,
      userId: 'usr-1',
      now: '2026-11-23T10:00:00.000Z',
    });

  it("reads the card's PAN, CVV2 and expiry from the vault for its owner", async () => {
    const cardId = await createCard();
    await expect(service.cardholderDetails(caller(), cardId)).resolves.toEqual({
      pan: '4000009912344242',
      cvv2: '987',
      expMonth: 11,
      expYear: 2029,
    });
    expect(revealed).toContain('vlt-1');
  });

  it("refuses production (403 sandbox_only) and another distributor's or a missing card (404)", async () => {
    const cardId = await createCard();
    revealed.length = 0;
    await expect(
      service.cardholderDetails(caller({ environment: 'production' }), cardId),
    ).rejects.toMatchObject({
      code: 'sandbox_only',
    });
    await expect(
      service.cardholderDetails(caller({ distributorId: 'dst-other' }), cardId),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(service.cardholderDetails(caller(), 'crd-missing')).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(revealed).toEqual([]);
  });
});
