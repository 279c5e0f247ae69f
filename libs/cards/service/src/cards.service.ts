import type {
  CardForProvisioning,
  CardListFilter,
  CardProvisioningApi,
  CardsApi,
  CreateCardInput,
  SpendingControlsUpdate,
} from '@cip/cards/contract';
import {
  cardDecider,
  CardRecord,
  CardState,
  CardCommand,
  CardStatusCommand,
  isCard,
  UserStatusForCards,
} from '@cip/cards/domain';
import { CardView, cardsProjection, toCardView } from '@cip/cards/read-models';
import type { CardVault } from '@cip/cards/vault';
import {
  Caller,
  DomainError,
  Environment,
  FindPage,
  FindResult,
  notFound,
  ownedBy,
} from '@cip/shared/contracts';
import { callerContext, EventStore, handleCommand, loadState } from '@cip/shared/eventing';
import { forTenant, ReadStore } from '@cip/shared/read-store';
import { Clock, newId } from '@cip/shared/runtime';
import type { UserLifecycleApi } from '@cip/users/contract';
import type { WalletsApi } from '@cip/wallets/contract';

/** The BIN an environment issues from and how long its cards last. */
export interface CardIssuing {
  bin: string;
  lifetimeMonths: number;
}

export interface CardsPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the cards projection has caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  /**
   * The same wait, failing when the projection does not catch up in time: a saga acting on "every card of
   * the user" must not act on a partial list, so it fails and its event is delivered again.
   */
  catchUp(environment: Environment): Promise<void>;
  /** The environment's card vault: the only holder of PANs. */
  vault(environment: Environment): CardVault;
  /** Null when the environment has no BIN configured: it cannot issue cards. */
  issuing(environment: Environment): CardIssuing | null;
  users: Pick<UserLifecycleApi, 'findUser'>;
  wallets: Pick<WalletsApi, 'listWallets'>;
}

/** A user's status change as the user-stopped-cards saga hands it over. */
export interface UserStatusChange {
  distributorId: string;
  userId: string;
  userStatus: UserStatusForCards;
  reason: string;
  /** The user's status event: applied once per card. */
  cause: string;
  correlationId: string;
}

const CARDS_PER_PAGE = 100;

const FIRST_WALLET: FindPage = { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 1 };

/**
 * The cards context's command and query handlers. A card is issued by the vault first (PAN, expiry) and
 * recorded second: a failed append leaves an unused vault entry behind, never a card without its secrets,
 * and the PAN it holds is never issued again.
 */
export class CardsService implements CardsApi, CardProvisioningApi {
  constructor(
    private readonly ports: CardsPorts,
    private readonly clock: Clock,
  ) {}

  async createCard(caller: Caller, input: CreateCardInput): Promise<CardView> {
    const user = await this.ports.users.findUser(caller, input.userId);
    if (!user) throw notFound('User', input.userId);
    if (user.status !== 'active') {
      throw new DomainError(
        'user_not_active',
        `User ${input.userId} is ${user.status}: cards are issued to active users only`,
      );
    }
    const { items } = await this.ports.wallets.listWallets(caller, { userId: input.userId }, FIRST_WALLET);
    const wallet = items[0];
    if (!wallet || wallet.status !== 'active') {
      throw new DomainError(
        'create_wallet_error',
        `User ${input.userId} has no provisioned wallet to fund a card: contact support with the user id`,
      );
    }
    const issuing = this.ports.issuing(caller.environment);
    if (!issuing) {
      throw new DomainError(
        'service_unavailable',
        `Card issuing is not configured in ${caller.environment}: no BIN`,
      );
    }
    const now = this.clock.now();
    const issued = await this.ports.vault(caller.environment).issueCard({ ...issuing, now });
    const cardId = newId('crd');
    const context = callerContext(now, caller);
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      cardDecider,
      cardId,
      {
        type: 'CreateCard',
        data: {
          cardId,
          distributorId: caller.distributorId,
          userId: input.userId,
          walletId: wallet.id,
          type: input.type,
          issued: {
            vaultRef: issued.vaultRef,
            bin: issued.bin,
            last4: issued.last4,
            expMonth: issued.expMonth,
            expYear: issued.expYear,
          },
          now: context.occurredAt,
        },
      },
      context,
      { expectNew: true },
    );
    return toCardView(result.state as CardRecord);
  }

  async getCard(caller: Caller, cardId: string): Promise<CardView> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), cardDecider, cardId);
    return toCardView(this.owned(caller, cardId, state));
  }

  async listCards(caller: Caller, filter: CardListFilter, page: FindPage): Promise<FindResult<CardView>> {
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).find<CardView>(
      cardsProjection.collection,
      { userId: filter.userId || undefined, status: filter.status || undefined },
      page,
    );
  }

  activateCard(caller: Caller, cardId: string): Promise<CardView> {
    return this.changeStatus(caller, cardId, 'ActivateCard');
  }

  freezeCard(caller: Caller, cardId: string): Promise<CardView> {
    return this.changeStatus(caller, cardId, 'FreezeCard');
  }

  unfreezeCard(caller: Caller, cardId: string): Promise<CardView> {
    return this.changeStatus(caller, cardId, 'UnfreezeCard');
  }

  revokeCard(caller: Caller, cardId: string): Promise<CardView> {
    return this.changeStatus(caller, cardId, 'RevokeCard');
  }

  async updateSpendingControls(
    caller: Caller,
    cardId: string,
    update: SpendingControlsUpdate,
  ): Promise<CardView> {
    return this.ownedCommand(caller, cardId, (now) => ({
      type: 'UpdateSpendingControls',
      data: { update, now },
    }));
  }

  /**
   * Applies a user's status change to every card of the user (the user-stopped-cards saga). The cards are
   * found in the cards read model once it has caught up with the log, so a card recorded before the user's
   * change is included; each card's own stream decides (a card already following the change is left alone).
   */
  async applyUserStatus(environment: Environment, change: UserStatusChange): Promise<void> {
    await this.ports.catchUp(environment);
    const cards = forTenant(this.ports.readStore, { distributorId: change.distributorId, environment });
    const cardIds: string[] = [];
    for (let page = 0, hasMore = true; hasMore; page++) {
      const result = await cards.find<CardView>(
        cardsProjection.collection,
        { userId: change.userId },
        { sort: { field: 'createdAt', direction: 'asc' }, page, limit: CARDS_PER_PAGE },
      );
      cardIds.push(...result.items.filter((card) => card.status !== 'revoked').map((card) => card.id));
      hasMore = result.hasMore;
    }
    const context = {
      occurredAt: this.clock.now().toISOString(),
      distributorId: change.distributorId,
      environment,
      correlationId: change.correlationId,
      causationId: change.cause,
    };
    for (const cardId of cardIds) {
      await handleCommand(
        this.ports.eventStore(environment),
        cardDecider,
        cardId,
        {
          type: 'ApplyUserStatus',
          data: {
            userStatus: change.userStatus,
            reason: change.reason,
            cause: change.cause,
            now: context.occurredAt,
          },
        },
        context,
      );
    }
  }

  /**
   * The PAN and expiry of an active card, for the tokenization context to seal into a digital wallet's
   * provisioning payload (the vault's `revealForProvisioning`): nothing else of this path keeps or logs them.
   */
  async cardForProvisioning(caller: Caller, cardId: string): Promise<CardForProvisioning> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), cardDecider, cardId);
    const card = this.owned(caller, cardId, state);
    if (card.status !== 'active') {
      throw new DomainError(
        'card_not_active',
        `Card ${cardId} is ${card.status}: only active cards are tokenized`,
      );
    }
    const { pan, expMonth, expYear } = await this.ports
      .vault(caller.environment)
      .revealForProvisioning(card.vaultRef);
    return { cardId, pan, expMonth, expYear };
  }

  private changeStatus(caller: Caller, cardId: string, type: CardStatusCommand['type']): Promise<CardView> {
    return this.ownedCommand(caller, cardId, (now) => ({ type, data: { now } }));
  }

  /** A distributor's command on one of its cards (another tenant's card is not found). */
  private async ownedCommand(
    caller: Caller,
    cardId: string,
    build: (now: string) => CardCommand,
  ): Promise<CardView> {
    const context = callerContext(this.clock.now(), caller);
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      cardDecider,
      cardId,
      (state) => {
        this.owned(caller, cardId, state);
        return build(context.occurredAt);
      },
      context,
    );
    return toCardView(result.state as CardRecord);
  }

  /** The card, if it exists and belongs to the caller; another tenant's card is simply not found. */
  private owned(caller: Caller, cardId: string, state: CardState): CardRecord {
    return ownedBy(caller, isCard(state) ? state : null, 'Card', cardId);
  }
}
