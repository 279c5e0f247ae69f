import { cardDecider, isCard } from '@cip/cards/domain';
import { cardsProjection } from '@cip/cards/read-models';
import type { ProgramDirectory } from '@cip/distributors/contract';
import type { Caller, ProgramRules } from '@cip/shared/contracts';
import { envelope, loadState } from '@cip/shared/eventing';
import {
  ConsumerHost,
  environmentStores,
  Infrastructure,
  openEmbeddedInfrastructure,
  sagaConsumer,
} from '@cip/shared/infrastructure';
import { newId, systemClock } from '@cip/shared/runtime';
import {
  userActivated,
  userDisabled,
  userFrozen,
  type UserLifecycleApi,
  type UserStatus,
  type UserView,
} from '@cip/users/contract';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardsService } from '../cards.service';
import { recordVirtualCard } from '../card.spec-fixtures';
import { userStoppedCardsSaga } from './user-stopped-cards.saga';

const DISTRIBUTOR = 'dst-history';
const PROGRAM: ProgramRules = {
  allowedCountries: ['FR'],
  b2b: false,
  prepaid: false,
  kycImportEnabled: false,
};
const programs: ProgramDirectory = { programOf: (id) => (id === DISTRIBUTOR ? PROGRAM : null) };
const EVENT_OF = { active: userActivated, frozen: userFrozen, disabled: userDisabled } as const;

/**
 * The users context as far as the saga sees it: its published status events in the log, and `findUser`
 * answering the user's status as it is now (the cards context may not use the users service itself).
 */
class UsersStandIn implements Pick<UserLifecycleApi, 'findUser'> {
  private readonly statuses = new Map<string, UserStatus>();

  constructor(private readonly infrastructure: Infrastructure) {}

  async findUser(tenant: Caller, userId: string): Promise<UserView | null> {
    const status = this.statuses.get(userId);
    return status && tenant.distributorId === DISTRIBUTOR ? ({ id: userId, status } as UserView) : null;
  }

  async changeStatus(userId: string, to: keyof typeof EVENT_OF, reason: string | null = null): Promise<void> {
    const previousStatus = this.statuses.get(userId) ?? 'onboarding';
    const at = new Date().toISOString();
    // The users service answers from the user's stream, so its answer changes with the append itself: the
    // saga may read the event as soon as it is appended, before `append` resolves here.
    this.statuses.set(userId, to);
    await this.infrastructure
      .scope('sandbox')
      .eventStore.append(userId, [
        envelope(
          { type: EVENT_OF[to].type, data: { userId, previousStatus, reason, at } },
          { occurredAt: at, distributorId: DISTRIBUTOR, environment: 'sandbox' },
        ),
      ]);
  }
}

// The saga's first start in a deployment that already has users and cards: its consumer group starts at the
// beginning of the log, so it meets every old user status event. History is written first, with no saga
// running (as before the deploy); then the saga starts and catches up.
describe('the user-stopped-cards saga starting on a log with history', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let users: UsersStandIn;
  let consumers: ConsumerHost | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cards-saga-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
    users = new UsersStandIn(infrastructure);
  });
  afterEach(async () => {
    await consumers?.stop();
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function activeUser(): Promise<string> {
    const userId = newId('usr');
    await users.changeStatus(userId, 'active');
    return userId;
  }

  const cardOf = (userId: string) =>
    recordVirtualCard(infrastructure.scope('sandbox').eventStore, {
      distributorId: DISTRIBUTOR,
      userId,
      now: new Date().toISOString(),
    });

  /** The cards projection and the saga, started now on the log as it is, and caught up with it. */
  async function startSaga(): Promise<void> {
    consumers = new ConsumerHost();
    const host = consumers;
    const cards = new CardsService(
      {
        ...environmentStores(infrastructure),
        settle: (environment) => host.drain(environment),
        catchUp: (environment) => host.drain(environment, [`projection.${cardsProjection.name}`]),
        vault: () => {
          throw new Error('no card is issued here');
        },
        issuing: () => null,
        users,
        wallets: { findUserWallet: async () => null },
        fulfilment: () => null,
        settleFulfilment: async () => undefined,
      },
      systemClock,
    );
    consumers.registerProjection(cardsProjection);
    consumers.register(sagaConsumer(userStoppedCardsSaga, [cards, users, programs]));
    await consumers.start(infrastructure);
    await consumers.drain('sandbox');
  }

  const card = async (cardId: string) => {
    const { state } = await loadState(infrastructure.scope('sandbox').eventStore, cardDecider, cardId);
    if (!isCard(state)) throw new Error(`no card ${cardId}`);
    return { status: state.status, blocks: state.blocks };
  };

  it('leaves alone the cards of a user frozen and reactivated before the saga ever ran', async () => {
    const userId = await activeUser();
    const issuedBefore = await cardOf(userId);
    await users.changeStatus(userId, 'frozen', 'suspicious activity');
    await users.changeStatus(userId, 'active');
    const issuedAfter = await cardOf(userId);

    await startSaga();

    expect(await card(issuedBefore)).toEqual({ status: 'active', blocks: [] });
    expect(await card(issuedAfter)).toEqual({ status: 'active', blocks: [] });
    // Nothing was appended to either card.
    for (const cardId of [issuedBefore, issuedAfter]) {
      expect(await infrastructure.scope('sandbox').eventStore.readStream(cardId)).toHaveLength(1);
    }
  });

  it('still stops the cards of a user who is frozen or disabled now, whatever came before', async () => {
    const frozenUser = await activeUser();
    const frozenCard = await cardOf(frozenUser);
    await users.changeStatus(frozenUser, 'frozen', 'suspicious activity');
    await users.changeStatus(frozenUser, 'active');
    await users.changeStatus(frozenUser, 'frozen', 'again');
    const disabledUser = await activeUser();
    const disabledCard = await cardOf(disabledUser);
    await users.changeStatus(disabledUser, 'frozen', 'suspicious activity');
    await users.changeStatus(disabledUser, 'disabled');

    await startSaga();

    expect(await card(frozenCard)).toEqual({ status: 'frozen', blocks: ['user_frozen'] });
    expect(await card(disabledCard)).toMatchObject({ status: 'revoked' });
    // Once: the old freeze was skipped, the current one applied.
    const types = (await infrastructure.scope('sandbox').eventStore.readStream(frozenCard)).map(
      (e) => e.type,
    );
    expect(types).toEqual(['CardCreated', 'CardFrozen']);
  });

  it('follows the user live as before: frozen, then back to active leaves the card frozen for its distributor', async () => {
    const userId = await activeUser();
    const cardId = await cardOf(userId);
    await startSaga();

    await users.changeStatus(userId, 'frozen', 'suspicious activity');
    await consumers!.drain('sandbox');
    expect(await card(cardId)).toEqual({ status: 'frozen', blocks: ['user_frozen'] });
    await users.changeStatus(userId, 'active');
    await consumers!.drain('sandbox');
    expect(await card(cardId)).toEqual({ status: 'frozen', blocks: [] });
  });
});
