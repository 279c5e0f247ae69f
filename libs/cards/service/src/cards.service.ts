import type {
  CardForProvisioning,
  CardListFilter,
  CardProvisioningApi,
  CardsApi,
  CardSimulationApi,
  CreateCardInput,
  ReissueCardInput,
  SimulateShipmentInput,
  SpendingControlsUpdate,
} from '@cip/cards/contract';
import {
  cardDecider,
  CardRecord,
  CardState,
  CardCommand,
  CardStatusCommand,
  CreateCard,
  isCard,
  parseInitialSpendingControls,
  UserStatusForCards,
  vaultRefOfCard,
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
import { callerContext, CommandContext, EventStore, handleCommand, loadState } from '@cip/shared/eventing';
import { forTenant, ReadStore } from '@cip/shared/read-store';
import { Clock, newId } from '@cip/shared/runtime';
import type { UserLifecycleApi, UserView } from '@cip/users/contract';
import type { WalletsApi } from '@cip/wallets/contract';
import type { FulfilmentProvider } from './fulfilment/fulfilment-provider.port';
import { sandboxTrackingNumber } from './fulfilment/sandbox-fulfilment-provider';
import {
  physicalCardDetails,
  refusePhysicalFieldsOnVirtual,
  reissuedPhysicalCardDetails,
} from './physical-cards';

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
  wallets: Pick<WalletsApi, 'findUserWallet'>;
  /** The card bureau printing and shipping physical cards; null where none is configured (none issued). */
  fulfilment(environment: Environment): FulfilmentProvider | null;
  /** Waits until the card-fulfilment saga has ordered what was recorded before the call (never fails). */
  settleFulfilment(environment: Environment): Promise<void>;
}

/** What a saga's command on a card is traced to. */
export interface CardTrigger {
  distributorId: string;
  correlationId: string;
  causationId: string;
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

/**
 * The cards context's command and query handlers. A card is issued by the vault first (PAN, expiry) and
 * recorded second: a failed append leaves an unused vault entry behind, never a card without its secrets,
 * and the PAN it holds is never issued again.
 */
export class CardsService implements CardsApi, CardSimulationApi, CardProvisioningApi {
  constructor(
    private readonly ports: CardsPorts,
    private readonly clock: Clock,
  ) {}

  async createCard(caller: Caller, input: CreateCardInput): Promise<CardView> {
    // Bad input is refused before anything is looked up or issued (a 400 changes nothing, not even the vault).
    refusePhysicalFieldsOnVirtual(input);
    if (input.spendingControls) parseInitialSpendingControls(input.spendingControls);
    const user = await this.activeUser(caller, input.userId);
    // From the wallet's stream, not the wallets list: no wait for a read model on every card.
    const wallet = await this.ports.wallets.findUserWallet(caller, input.userId);
    if (!wallet || wallet.status !== 'active') {
      throw new DomainError(
        'create_wallet_error',
        `User ${input.userId} has no provisioned wallet to fund a card: contact support with the user id`,
      );
    }
    const physical = input.type === 'physical' ? physicalCardDetails(caller, user, input) : undefined;
    const context = callerContext(this.clock.now(), caller);
    const card = await this.recordNewCard(caller, context, newId('crd'), {
      distributorId: caller.distributorId,
      userId: input.userId,
      walletId: wallet.id,
      type: input.type,
      ...(physical ? { physical } : {}),
      ...(input.spendingControls ? { spendingControls: input.spendingControls } : {}),
    });
    return toCardView(card);
  }

  /**
   * Replaces a card (API-DECISIONS, "Cards"; Lithic's and Stripe's reissue). The old card's stream decides
   * first: it names its replacement (once) and revokes a lost or stolen card at once. The new card is then
   * issued and recorded under that name, so a retry after a crash between the two finishes the same
   * replacement and a retry after success answers it. A damaged or expired card keeps working until its
   * replacement is active: at once for a virtual one (below), on activation for a physical one (the
   * replaced-card saga, which also covers a crash here).
   */
  async reissueCard(caller: Caller, cardId: string, input: ReissueCardInput): Promise<CardView> {
    const store = this.ports.eventStore(caller.environment);
    const old = this.owned(caller, cardId, (await loadState(store, cardDecider, cardId)).state);
    let physical: CreateCard['data']['physical'];
    if (!old.replacedBy) {
      if (old.status === 'revoked') {
        throw new DomainError('invalid_state_transition', `Card ${cardId} is revoked and cannot be reissued`);
      }
      const user = await this.activeUser(caller, old.userId);
      if (old.type === 'physical') physical = reissuedPhysicalCardDetails(caller, user, old);
      this.issuingOf(caller.environment, old.type);
    }
    const context = callerContext(this.clock.now(), caller);
    const replaced = await handleCommand(
      store,
      cardDecider,
      cardId,
      (state): CardCommand => {
        this.owned(caller, cardId, state);
        const newCardId = newId('crd');
        return { type: 'ReissueCard', data: { reason: input.reason, newCardId, now: context.occurredAt } };
      },
      context,
    );
    const card = await this.issueReplacement(caller, replaced.state as CardRecord, physical);
    await this.retireReplacedCard(caller.environment, card.cardId, {
      distributorId: caller.distributorId,
      correlationId: caller.requestId,
      causationId: caller.requestId,
    });
    return toCardView(card);
  }

  /**
   * Issues and records the replacement a card names (`CardReplaced`), unless it exists already. Called by
   * the reissue itself, and by the reissue-completion saga on `CardReplaced`: a reissue whose process died
   * between naming the replacement (a lost or stolen card then revoked already) and recording it is
   * finished without the client calling again. A concurrent call recording it first is the replacement.
   */
  async issueReplacement(
    caller: Caller,
    old: CardRecord,
    physical?: CreateCard['data']['physical'],
  ): Promise<CardRecord> {
    const newCardId = old.replacedBy;
    if (!newCardId) throw new Error(`Card ${old.cardId} names no replacement`);
    const existing = await this.findCard(caller.environment, newCardId);
    if (existing) return existing;
    if (old.type === 'physical' && !physical) {
      // Replaced by an earlier call that did not get to issue: the current address, as that call would have.
      physical = reissuedPhysicalCardDetails(caller, await this.activeUser(caller, old.userId), old);
    }
    const context = callerContext(this.clock.now(), caller);
    return this.recordNewCard(caller, context, newCardId, {
      distributorId: old.distributorId,
      userId: old.userId,
      walletId: old.walletId,
      type: old.type,
      ...(physical ? { physical } : {}),
      ...(old.spendingControls ? { spendingControls: old.spendingControls } : {}),
      replacesCardId: old.cardId,
    }).catch(async (error: unknown) => {
      const recorded = await this.findCard(caller.environment, newCardId);
      if (recorded) return recorded;
      throw error;
    });
  }

  /** The reissue-completion saga: the replacement `oldCardId` names, recorded if it is not yet. */
  async completeReissue(caller: Caller, oldCardId: string): Promise<void> {
    const old = await this.findCard(caller.environment, oldCardId);
    if (old?.replacedBy) await this.issueReplacement(caller, old);
  }

  async getCard(caller: Caller, cardId: string): Promise<CardView> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), cardDecider, cardId);
    return toCardView(this.owned(caller, cardId, state));
  }

  async listCards(caller: Caller, filter: CardListFilter, page: FindPage): Promise<FindResult<CardView>> {
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).find<CardView>(
      cardsProjection.collection,
      {
        userId: filter.userId || undefined,
        status: filter.status || undefined,
        last4: filter.last4 || undefined,
      },
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
    const cardIds = (await this.cardsOfUser(environment, change.distributorId, change.userId))
      .filter((card) => card.status !== 'revoked')
      .map((card) => card.id);
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
   * Sandbox: the simulated card bureau's shipping notice. The order is placed by the card-fulfilment saga
   * just after the card is recorded, so the notice first waits for it (bounded; a card still not ordered
   * is `409 invalid_state_transition`, try again).
   */
  async simulateShipment(caller: Caller, cardId: string, input: SimulateShipmentInput): Promise<CardView> {
    await this.ports.settleFulfilment(caller.environment);
    return this.ownedCommand(caller, cardId, (now) => ({
      type: 'RecordShipment',
      data: {
        trackingNumber: input.trackingNumber ?? sandboxTrackingNumber(cardId),
        ...(input.shippingMethod ? { shippingMethod: input.shippingMethod } : {}),
        now,
      },
    }));
  }

  /**
   * Orders a physical card from the card bureau (the card-fulfilment saga, on the card's creation). Once:
   * the provider is idempotent by card id and a card ordered already is left alone, so a redelivery after
   * a crash between the order and its record orders nothing twice. A card revoked before its order went
   * out, or whose user was erased (no address left), is not ordered.
   */
  async orderFulfilment(environment: Environment, cardId: string, trigger: CardTrigger): Promise<void> {
    const card = await this.findCard(environment, cardId);
    if (!card?.shipment || card.shipment.status !== 'pending' || card.status === 'revoked') return;
    if (!card.shippingAddress || !card.tier) return;
    const provider = this.ports.fulfilment(environment);
    if (!provider) throw new Error(`No fulfilment provider in ${environment} to order card ${cardId} from`);
    const { orderId } = await provider.orderCard({
      environment,
      cardId,
      vaultRef: card.vaultRef,
      last4: card.last4,
      expMonth: card.expMonth,
      expYear: card.expYear,
      tier: card.tier,
      shippingAddress: card.shippingAddress,
      shippingMethod: card.shipment.requestedShippingMethod,
    });
    const context = this.sagaContext(environment, trigger);
    await handleCommand(
      this.ports.eventStore(environment),
      cardDecider,
      cardId,
      { type: 'RecordFulfilmentOrder', data: { provider: provider.name, orderId, now: context.occurredAt } },
      context,
    );
  }

  /**
   * A replacement that is active stops the card it replaces (a damaged or expired one still working; a
   * lost or stolen one is revoked already). Keyed by the replacement, so it applies once.
   */
  async retireReplacedCard(environment: Environment, newCardId: string, trigger: CardTrigger): Promise<void> {
    const card = await this.findCard(environment, newCardId);
    if (!card?.replacesCardId || card.status === 'inactive') return;
    const context = this.sagaContext(environment, trigger);
    await handleCommand(
      this.ports.eventStore(environment),
      cardDecider,
      card.replacesCardId,
      {
        type: 'RetireReplacedCard',
        data: { replacedBy: newCardId, cause: `replaced:${newCardId}`, now: context.occurredAt },
      },
      context,
    );
  }

  /**
   * The user was erased (the user-erased-cards saga): each of the user's physical cards records that its
   * shipping address is gone, so the cards read model drops its copy (the log's copy is sealed with the
   * user's key, deleted with the erasure). Revoked cards included: they still showed it.
   */
  async eraseShippingAddresses(
    environment: Environment,
    userId: string,
    trigger: CardTrigger,
  ): Promise<void> {
    const context = this.sagaContext(environment, trigger);
    for (const card of await this.cardsOfUser(environment, trigger.distributorId, userId)) {
      if (card.type !== 'physical') continue;
      await handleCommand(
        this.ports.eventStore(environment),
        cardDecider,
        card.id,
        { type: 'EraseShippingAddress', data: { cause: trigger.causationId, now: context.occurredAt } },
        context,
      );
    }
  }

  /**
   * Every card of a user, from the cards read model once it has caught up with the log (a card recorded
   * before the call is included), for the sagas acting on all of them.
   */
  private async cardsOfUser(
    environment: Environment,
    distributorId: string,
    userId: string,
  ): Promise<CardView[]> {
    await this.ports.catchUp(environment);
    const cards = forTenant(this.ports.readStore, { distributorId, environment });
    const found: CardView[] = [];
    for (let page = 0, hasMore = true; hasMore; page++) {
      const result = await cards.find<CardView>(
        cardsProjection.collection,
        { userId },
        { sort: { field: 'createdAt', direction: 'asc' }, page, limit: CARDS_PER_PAGE },
      );
      found.push(...result.items);
      hasMore = result.hasMore;
    }
    return found;
  }

  /** The user a card is for: it exists for the caller and is active. */
  private async activeUser(caller: Caller, userId: string): Promise<UserView> {
    const user = await this.ports.users.findUser(caller, userId);
    if (!user) throw notFound('User', userId);
    if (user.status !== 'active') {
      throw new DomainError(
        'user_not_active',
        `User ${userId} is ${user.status}: cards are issued to active users only`,
      );
    }
    return user;
  }

  /** The environment's BIN (and, for a physical card, its card bureau), or `503`: it issues no such card. */
  private issuingOf(environment: Environment, type: CardRecord['type']): CardIssuing {
    const issuing = this.ports.issuing(environment);
    if (!issuing) {
      throw new DomainError(
        'service_unavailable',
        `Card issuing is not configured in ${environment}: no BIN`,
      );
    }
    if (type === 'physical' && !this.ports.fulfilment(environment)) {
      throw new DomainError(
        'service_unavailable',
        `Physical cards are not available in ${environment}: no fulfilment provider is configured`,
      );
    }
    return issuing;
  }

  /**
   * Issues the card's number from the vault, then records the card: a failed append leaves an unused
   * vault entry behind, never a card without its secrets.
   */
  private async recordNewCard(
    caller: Caller,
    context: CommandContext,
    cardId: string,
    card: Omit<CreateCard['data'], 'cardId' | 'issued' | 'now'>,
  ): Promise<CardRecord> {
    const issuing = this.issuingOf(caller.environment, card.type);
    const issued = await this.ports
      .vault(caller.environment)
      .issueCard({ ...issuing, now: this.clock.now(), vaultRef: vaultRefOfCard(cardId) });
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      cardDecider,
      cardId,
      {
        type: 'CreateCard',
        data: {
          ...card,
          cardId,
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
    return result.state as CardRecord;
  }

  private async findCard(environment: Environment, cardId: string): Promise<CardRecord | null> {
    const { state } = await loadState(this.ports.eventStore(environment), cardDecider, cardId);
    return isCard(state) ? state : null;
  }

  private sagaContext(environment: Environment, trigger: CardTrigger) {
    return { occurredAt: this.clock.now().toISOString(), environment, ...trigger };
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
