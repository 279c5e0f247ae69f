import { cardDecider } from '@cip/cards/domain';
import type { CardVault } from '@cip/cards/vault';
import { handleCommand } from '@cip/shared/eventing';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordVirtualCard } from './card.spec-fixtures';
import { CardNetworkService } from './card-network.service';

const DISTRIBUTOR = 'dst-network';
const NOW = '2026-11-28T10:00:00.000Z';

describe('the card as the card network reads it (each authorization reads its card again)', () => {
  let dataDir: string;
  /** The issuer's process, and another process on the same DATA_DIR (the API's, or a replica). */
  let issuer: Infrastructure;
  let other: Infrastructure;
  let network: CardNetworkService;
  let cvv2Ok = true;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-card-network-'));
    issuer = openEmbeddedInfrastructure({ dataDir });
    other = openEmbeddedInfrastructure({ dataDir });
    const vault = { verifyCvv2: () => cvv2Ok } as unknown as CardVault;
    network = new CardNetworkService({
      eventStore: environmentStores(issuer).eventStore,
      vault: () => vault,
      verification: {
        recordVerification: async (environment, cardId, attempt) => {
          const { state } = await handleCommand(
            issuer.scope(environment).eventStore,
            cardDecider,
            cardId,
            { type: 'RecordVerification', data: { ...attempt, now: NOW } },
            { occurredAt: NOW, distributorId: DISTRIBUTOR, environment },
          );
          if (state.status === 'absent') throw new Error('no card');
          return {
            cardId,
            status: state.status,
            blocked: state.blocks.includes('pin_cvv_attempts'),
            consecutiveFailures: state.consecutiveFailures,
          };
        },
      },
    });
  });
  afterEach(async () => {
    await issuer.close();
    await other.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const changeStatus = (cardId: string, type: 'FreezeCard' | 'UnfreezeCard' | 'RevokeCard') =>
    handleCommand(
      other.scope('sandbox').eventStore,
      cardDecider,
      cardId,
      { type, data: { now: NOW } },
      { occurredAt: NOW, distributorId: DISTRIBUTOR, environment: 'sandbox' },
    );

  it('sees every change another process made since it last read the card', async () => {
    const cardId = await recordVirtualCard(other.scope('sandbox').eventStore, {
      distributorId: DISTRIBUTOR,
      userId: 'usr-1',
      now: NOW,
    });
    expect((await network.cardForClearing('sandbox', cardId))?.status).toBe('active');
    await changeStatus(cardId, 'FreezeCard');
    expect((await network.cardForClearing('sandbox', cardId))?.status).toBe('frozen');
    await changeStatus(cardId, 'UnfreezeCard');
    expect((await network.cardForClearing('sandbox', cardId))?.status).toBe('active');
    await changeStatus(cardId, 'RevokeCard');
    expect((await network.cardForClearing('sandbox', cardId))?.status).toBe('revoked');
  });

  it("counts CVV2 failures on the card's latest state, then a pass resets them", async () => {
    const cardId = await recordVirtualCard(other.scope('sandbox').eventStore, {
      distributorId: DISTRIBUTOR,
      userId: 'usr-1',
      now: NOW,
    });
    const entered = (authorizationId: string) => ({ value: '123', authorizationId });
    cvv2Ok = false;
    expect(await network.verifyCvv2('sandbox', cardId, entered('aut-1'))).toMatchObject({
      ok: false,
      consecutiveFailures: 1,
    });
    expect(await network.verifyCvv2('sandbox', cardId, entered('aut-2'))).toMatchObject({
      ok: false,
      consecutiveFailures: 2,
    });
    cvv2Ok = true;
    // The pass sees the two failures just recorded (a stale card would have none and record nothing).
    expect(await network.verifyCvv2('sandbox', cardId, entered('aut-3'))).toMatchObject({
      ok: true,
      consecutiveFailures: 0,
    });
    // The reset was recorded: the next failure is the first again.
    cvv2Ok = false;
    expect(await network.verifyCvv2('sandbox', cardId, entered('aut-4'))).toMatchObject({
      ok: false,
      consecutiveFailures: 1,
    });
  });

  it('answers null for a card that does not exist, and for one created after that answer once it exists', async () => {
    expect(await network.cardForClearing('sandbox', 'crd-00000000-0000-4000-8000-000000000000')).toBeNull();
    const cardId = await recordVirtualCard(other.scope('sandbox').eventStore, {
      distributorId: DISTRIBUTOR,
      userId: 'usr-1',
      now: NOW,
    });
    expect(await network.cardForClearing('sandbox', cardId)).toMatchObject({ cardId, status: 'active' });
  });
});
