import { cardDecider, isCard } from '@cip/cards/domain';
import { handleCommand, loadState } from '@cip/shared/eventing';
import { Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { newId } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

describe('cli: cards hold and unblock', () => {
  let dataDir: string;
  const cli = (...argv: string[]) =>
    runCliCaptured([...argv, '--data-dir', dataDir], { env: { USER: 'ada' } });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-cards-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function withInfrastructure<T>(work: (infrastructure: Infrastructure) => Promise<T>): Promise<T> {
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      return await work(infrastructure);
    } finally {
      await infrastructure.close();
    }
  }

  /** A card as the platform records it (the vault is not involved: operators never see secrets). */
  const createCard = () =>
    withInfrastructure(async (infrastructure) => {
      const cardId = newId('crd');
      const now = new Date().toISOString();
      await handleCommand(
        infrastructure.scope('sandbox').eventStore,
        cardDecider,
        cardId,
        {
          type: 'CreateCard',
          data: {
            cardId,
            distributorId: 'dst-acme',
            userId: 'usr-ada',
            walletId: 'wlt-ada',
            type: 'virtual',
            issued: { vaultRef: 'vlt-1', bin: '40000099', last4: '4242', expMonth: 11, expYear: 2029 },
            now,
          },
        },
        { occurredAt: now, distributorId: 'dst-acme', environment: 'sandbox' },
      );
      return cardId;
    });

  /** Three wrong PIN entries, as the authorizations context reports them. */
  const blockByWrongPins = (cardId: string) =>
    withInfrastructure(async (infrastructure) => {
      for (const authorizationId of ['aut-1', 'aut-2', 'aut-3']) {
        await handleCommand(
          infrastructure.scope('sandbox').eventStore,
          cardDecider,
          cardId,
          {
            type: 'RecordVerification',
            data: { authorizationId, method: 'pin', ok: false, now: new Date().toISOString() },
          },
          { occurredAt: new Date().toISOString(), distributorId: 'dst-acme', environment: 'sandbox' },
        );
      }
    });

  const cardState = (cardId: string) =>
    withInfrastructure(async (infrastructure) => {
      const { state } = await loadState(infrastructure.scope('sandbox').eventStore, cardDecider, cardId);
      if (!isCard(state)) throw new Error(`no card ${cardId}`);
      return state;
    });

  it('places and lifts a hold, prints the card with its blocks, and records who and why', async () => {
    const cardId = await createCard();
    const hold = (action: string, ...extra: string[]) =>
      cli('cards', 'hold', action, cardId, '--env', 'sandbox', '--hold', 'compliance_hold', ...extra);

    const placed = await hold('place', '--reason', 'CMP-118');
    expect(placed).toEqual({
      code: 0,
      stdout: `Card ${cardId} of usr-ada: frozen (compliance_hold placed)\n  blocks  compliance_hold\n`,
      stderr: '',
    });
    // Placing it again (a retry) changes nothing.
    expect((await hold('place', '--reason', 'CMP-118')).code).toBe(0);

    const lifted = await hold('lift', '--reason', 'CMP-118 cleared', '--operator', 'grace', '--json');
    expect(lifted).toMatchObject({ code: 0, stderr: '' });
    const card = JSON.parse(lifted.stdout);
    expect(card).toMatchObject({ id: cardId, status: 'frozen', blocks: [] });
    expect(card).not.toHaveProperty('distributorId');

    const events = await withInfrastructure((infrastructure) =>
      infrastructure.scope('sandbox').eventStore.readStream(cardId),
    );
    expect(events.map((event) => [event.type, event.data.by, event.data.reason])).toEqual([
      ['CardCreated', undefined, undefined],
      ['CardFrozen', 'operator:ada', 'CMP-118'],
      ['CardBlockLifted', 'operator:grace', 'CMP-118 cleared'],
    ]);

    // Lifting a hold that is no longer there is refused, and changes nothing.
    const again = await hold('lift', '--reason', 'CMP-118 cleared');
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/has no compliance_hold to lift/);
  });

  it('unblocks a card blocked by wrong PIN entries, and refuses a card that is not blocked', async () => {
    const cardId = await createCard();
    const unblock = () => cli('cards', 'unblock', cardId, '--env', 'sandbox', '--reason', 'ticket 4711');

    const notBlocked = await unblock();
    expect(notBlocked).toMatchObject({ code: 1, stdout: '' });
    expect(notBlocked.stderr).toMatch(/is not blocked/);

    await blockByWrongPins(cardId);
    expect(await cardState(cardId)).toMatchObject({ status: 'frozen', blocks: ['pin_cvv_attempts'] });
    expect(await unblock()).toEqual({
      code: 0,
      stdout: `Card ${cardId} of usr-ada: active (unblocked)\n  blocks  none\n`,
      stderr: '',
    });
    expect(await cardState(cardId)).toMatchObject({ status: 'active', blocks: [], consecutiveFailures: 0 });
  });

  it('refuses an unknown card, another environment, a hold it does not know and a blank reason', async () => {
    const cardId = await createCard();
    const unknown = await cli(
      'cards',
      'hold',
      'place',
      newId('crd'),
      '--env',
      'sandbox',
      '--hold',
      'fraud_hold',
      '--reason',
      'x',
    );
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/was not found in sandbox/);
    const production = await cli(
      'cards',
      'hold',
      'place',
      cardId,
      '--env',
      'production',
      '--hold',
      'fraud_hold',
      '--reason',
      'x',
    );
    expect(production.code).toBe(1);
    expect(production.stderr).toMatch(/was not found in production/);
    const badHold = await cli(
      'cards',
      'hold',
      'place',
      cardId,
      '--env',
      'sandbox',
      '--hold',
      'user_frozen',
      '--reason',
      'x',
    );
    expect(badHold.code).toBe(2);
    expect(badHold.stderr).toMatch(/Allowed choices are compliance_hold, fraud_hold/);
    const blank = await cli('cards', 'unblock', cardId, '--env', 'sandbox', '--reason', '  ');
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/Must not be empty/);
    expect(await cardState(cardId)).toMatchObject({ status: 'active', blocks: [] });
  });
});
