import { Inject, Injectable } from '@nestjs/common';
import {
  CARD_OPERATIONS_API,
  CARDS_API,
  type CardHold,
  type CardOperationsApi,
  type CardsApi,
  type CardView,
} from '@cip/cards/contract';
import { EVENTS_API, type EventsApi } from '@cip/events/contract';
import {
  type DeclinedCode,
  KYC_API,
  KYC_OPERATOR_API,
  type KycApi,
  type KycOperatorApi,
  type KycResource,
  type RfiSubtype,
} from '@cip/kyc/contract';
import type { Environment } from '@cip/shared/contracts';
import {
  type TargetStatus,
  USER_LIFECYCLE_API,
  type UserLifecycleApi,
  type UserView,
} from '@cip/users/contract';
import {
  WALLET_COMPLIANCE_API,
  WALLETS_API,
  type WalletComplianceApi,
  type WalletsApi,
} from '@cip/wallets/contract';
import { WEBHOOKS_API, type WebhookDelivery, type WebhooksApi } from '@cip/webhooks/contract';
import type { WalletSummary } from '@cip/backoffice/contract';
import { walletSummary } from './operator-queries';
import { Tenants } from './tenants';

/** Who acts and why, as the cards context records it on the card (`operator:<email>`). */
export interface StaffAction {
  operator: string;
  reason: string;
}

/**
 * The actions of the environment pages, each one call of the owning context's contract: distributor
 * actions (freeze, unfreeze) with the owner's caller, so the card's rules apply as they do to the
 * distributor (an unfreeze under a hold is `409 card_unfreeze_blocked_error`); operator actions (holds,
 * unblock, KYC review, RFIs, wallet compliance holds) through the contexts' operator APIs; user status
 * changes through the users lifecycle contract with the owner's caller (its transitions apply). The audit
 * trail is the controller's (`audited`); `subjectOf*` name the user an action concerns for it.
 */
@Injectable()
export class OperatorActions {
  constructor(
    private readonly tenants: Tenants,
    @Inject(CARDS_API) private readonly cards: CardsApi,
    @Inject(CARD_OPERATIONS_API) private readonly cardOperations: CardOperationsApi,
    @Inject(KYC_API) private readonly kycs: KycApi,
    @Inject(KYC_OPERATOR_API) private readonly kycOperator: KycOperatorApi,
    @Inject(USER_LIFECYCLE_API) private readonly lifecycle: UserLifecycleApi,
    @Inject(WALLETS_API) private readonly wallets: WalletsApi,
    @Inject(WALLET_COMPLIANCE_API) private readonly walletCompliance: WalletComplianceApi,
    @Inject(EVENTS_API) private readonly events: EventsApi,
    @Inject(WEBHOOKS_API) private readonly webhooks: WebhooksApi,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // Whom an action concerns (null: unknown id; the action itself then answers 404, recorded as refused)
  // -------------------------------------------------------------------------------------------------

  async userOfCard(environment: Environment, cardId: string): Promise<string | null> {
    return (await this.tenants.find(environment, (c) => this.cards.getCard(c, cardId)))?.found.userId ?? null;
  }

  async userOfKyc(environment: Environment, kycId: string): Promise<string | null> {
    return (
      (await this.tenants.find(environment, (c) => this.kycs.getKyc(c, kycId)))?.found.kyc.userId ?? null
    );
  }

  async userOfWallet(environment: Environment, walletId: string): Promise<string | null> {
    return (
      (await this.tenants.find(environment, (c) => this.wallets.getWallet(c, walletId)))?.found.userId ?? null
    );
  }

  async userOfEvent(environment: Environment, eventId: string): Promise<string | null> {
    return (
      (await this.tenants.find(environment, (c) => this.events.getEvent(c, eventId)))?.found.userId ?? null
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Cards
  // -------------------------------------------------------------------------------------------------

  async freezeCard(environment: Environment, cardId: string): Promise<CardView> {
    const { tenant } = await this.cardOwner(environment, cardId);
    return this.cards.freezeCard(tenant.caller, cardId);
  }

  /** `409 card_unfreeze_blocked_error` while the card has a hold, a PIN/CVV2 block or a frozen user. */
  async unfreezeCard(environment: Environment, cardId: string): Promise<CardView> {
    const { tenant } = await this.cardOwner(environment, cardId);
    return this.cards.unfreezeCard(tenant.caller, cardId);
  }

  unblockCard(environment: Environment, cardId: string, action: StaffAction): Promise<CardView> {
    return this.cardOperations.unblockCard(environment, cardId, action);
  }

  placeCardHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: StaffAction,
  ): Promise<CardView> {
    return this.cardOperations.placeHold(environment, cardId, hold, action);
  }

  liftCardHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: StaffAction,
  ): Promise<CardView> {
    return this.cardOperations.liftHold(environment, cardId, hold, action);
  }

  private cardOwner(environment: Environment, cardId: string) {
    return this.tenants.owner(environment, 'Card', cardId, (c) => this.cards.getCard(c, cardId));
  }

  // -------------------------------------------------------------------------------------------------
  // KYC, wallets, webhooks
  // -------------------------------------------------------------------------------------------------

  async reviewKyc(
    environment: Environment,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    const { tenant } = await this.tenants.owner(environment, 'KYC', kycId, (c) => this.kycs.getKyc(c, kycId));
    return this.kycOperator.review(tenant.caller, kycId, decision, declinedCode);
  }

  async raiseRfi(environment: Environment, userId: string, rfiSubtype: RfiSubtype): Promise<KycResource> {
    const { tenant } = await this.userOwner(environment, userId);
    return this.kycOperator.raiseRfi(tenant.caller, userId, rfiSubtype);
  }

  /** The user's status now (`404 not_found` when no distributor has the user). */
  async userStatus(environment: Environment, userId: string): Promise<UserView['status']> {
    return (await this.userOwner(environment, userId)).found.status;
  }

  /**
   * The user's lifecycle change done for its distributor (user.frozen, user.activated, ...): a transition
   * the lifecycle refuses (a revoked user made active) is `409 invalid_state_transition`; the status the
   * user has changes nothing.
   */
  async changeUserStatus(
    environment: Environment,
    userId: string,
    to: TargetStatus,
    reason: string,
    expectedFrom?: UserView['status'],
  ): Promise<UserView> {
    const { tenant } = await this.userOwner(environment, userId);
    return this.lifecycle.changeStatus(tenant.caller, userId, to, reason, undefined, expectedFrom);
  }

  private userOwner(environment: Environment, userId: string) {
    return this.tenants.owner(environment, 'User', userId, (c) => this.lifecycle.findUser(c, userId));
  }

  async setWalletComplianceHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
  ): Promise<WalletSummary> {
    return walletSummary(await this.walletCompliance.setComplianceHold(environment, walletId, on, reason));
  }

  /** Sends the Event again to every subscription of its distributor: one new delivery each. */
  async redeliver(environment: Environment, eventId: string): Promise<WebhookDelivery[]> {
    const { tenant } = await this.tenants.owner(environment, 'Event', eventId, (c) =>
      this.events.getEvent(c, eventId),
    );
    return this.webhooks.redeliver(tenant.caller, eventId);
  }
}
