import type { CardProvisioningApi, CardsApi, CardView } from '@cip/cards/contract';
import type { ProgramDirectory } from '@cip/distributors/contract';
import { Caller, DomainError, Environment, FindPage, FindResult, notFound } from '@cip/shared/contracts';
import { callerContext, CommandContext, EventStore, handleCommand } from '@cip/shared/eventing';
import { forTenant, ReadStore } from '@cip/shared/read-store';
import { Clock, newId } from '@cip/shared/runtime';
import type {
  ActivateTokenizationInput,
  ApplePayTokenization,
  ApplePayTokenizationInput,
  GooglePayTokenization,
  GooglePayTokenizationInput,
  SimulateTokenizationInput,
  TokenizationApi,
  TokenizationSimulationApi,
  TokenView,
} from '@cip/tokenization/contract';
import {
  ProvisionManually,
  RequestToken,
  TokenCommand,
  tokenDecider,
  TokenRecord,
} from '@cip/tokenization/domain';
import { tokensProjection, toTokenView } from '@cip/tokenization/read-models';
import type { UserLifecycleApi } from '@cip/users/contract';
import { randomBytes, randomInt } from 'node:crypto';
import {
  encryptApplePayPassData,
  leafPublicKey,
  passDataExpiration,
} from './provisioning/apple-pay-pass-data';
import {
  googleOpaquePaymentCard,
  GooglePayOpcKeys,
  sealGoogleOpc,
} from './provisioning/google-opaque-payment-card';

export interface TokenizationPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the tokens projection has caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  /** The same wait, failing when it does not catch up in time: a saga must not act on a partial list. */
  catchUp(environment: Environment): Promise<void>;
  cards: Pick<CardsApi, 'getCard'>;
  provisioning: CardProvisioningApi;
  users: Pick<UserLifecycleApi, 'findUser'>;
  programs: ProgramDirectory;
  googlePayKeys(environment: Environment): Promise<GooglePayOpcKeys>;
}

/** A card's status change as the card-status-tokens saga hands it over. */
export interface CardStatusChange {
  distributorId: string;
  cardId: string;
  correlationId: string;
  /** The card's event. */
  causationId: string;
}

const TOKENS_PER_PAGE = 100;

/** What every new token's command carries about the token and its card. */
type NewToken = Pick<
  RequestToken['data'],
  'tokenId' | 'distributorId' | 'cardId' | 'userId' | 'cardStatus' | 'tokenReferenceId' | 'now'
>;

/**
 * The token service's reference of a token: 32 characters, as Visa VTS's `DNITHE...` references. The
 * platform plays the token service (there is no network link yet), so it assigns them.
 */
const newTokenReferenceId = (): string => `DNITHE${randomBytes(13).toString('hex').toUpperCase()}`;

/** The token service's one-time activation code: six digits. */
const newActivationCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * The tokenization context's command and query handlers. A card is read through the cards contract; its
 * PAN and expiry only through `cardForProvisioning`, sealed at once into the provider's payload and
 * never kept, logged or returned in clear.
 */
export class TokenizationService implements TokenizationApi, TokenizationSimulationApi {
  constructor(
    private readonly ports: TokenizationPorts,
    private readonly clock: Clock,
  ) {}

  async tokenizeForApplePay(
    caller: Caller,
    cardId: string,
    input: ApplePayTokenizationInput,
  ): Promise<ApplePayTokenization> {
    const card = await this.ports.cards.getCard(caller, cardId);
    const leafKey = await leafPublicKey(input.certificates, this.clock.now());
    const { pan, expMonth, expYear } = await this.ports.provisioning.cardForProvisioning(caller, cardId);
    const payload = encryptApplePayPassData(leafKey, {
      primaryAccountNumber: pan,
      expiration: passDataExpiration(expMonth, expYear),
      nonce: input.nonce,
      nonceSignature: input.nonceSignature,
    });
    const token = await this.requestToken(caller, card, { digitalWalletName: 'applePay' });
    return { token, ...payload };
  }

  async tokenizeForGooglePay(
    caller: Caller,
    cardId: string,
    input: GooglePayTokenizationInput,
  ): Promise<GooglePayTokenization> {
    const card = await this.ports.cards.getCard(caller, cardId);
    const { pan, expMonth, expYear } = await this.ports.provisioning.cardForProvisioning(caller, cardId);
    const opaquePaymentCard = await sealGoogleOpc(
      googleOpaquePaymentCard({ pan, expMonth, expYear, ...input }),
      await this.ports.googlePayKeys(caller.environment),
    );
    const token = await this.requestToken(caller, card, { digitalWalletName: 'googlePay', ...input });
    return { token, opaquePaymentCard };
  }

  async activateTokenization(
    caller: Caller,
    cardId: string,
    input: ActivateTokenizationInput,
  ): Promise<TokenView> {
    const card = await this.ports.cards.getCard(caller, cardId);
    await this.ports.settle(caller.environment);
    const { items } = await forTenant(this.ports.readStore, caller).find<TokenView>(
      tokensProjection.collection,
      { cardId, tokenReferenceId: input.tokenReferenceId, digitalWalletName: input.digitalWalletName },
      { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 1 },
    );
    const token = items[0];
    if (!token) {
      throw notFound(`${input.digitalWalletName} token ${input.tokenReferenceId} of card`, cardId);
    }
    const context = callerContext(this.clock.now(), caller);
    return this.command(caller.environment, token.id, context, {
      type: 'ActivateToken',
      data: { cardStatus: card.status, now: context.occurredAt },
    });
  }

  async listCardTokens(caller: Caller, cardId: string, page: FindPage): Promise<FindResult<TokenView>> {
    await this.ports.cards.getCard(caller, cardId);
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).find<TokenView>(
      tokensProjection.collection,
      { cardId },
      page,
    );
  }

  /**
   * The sandbox token service's manual path: the user typed the card's details into the wallet, chose how
   * to receive the activation code (`cardTokenization.deliverActivationCode`, to the user's e-mail address
   * or phone, for the distributor to deliver), entered it, and the token is active
   * (`cardTokenization.activated`).
   */
  async simulateTokenization(caller: Caller, input: SimulateTokenizationInput): Promise<TokenView> {
    const card = await this.ports.cards.getCard(caller, input.cardId);
    const user = input.activationMethod ? await this.ports.users.findUser(caller, card.userId) : null;
    return this.newToken(caller, card, (token) => ({
      type: 'ProvisionManually',
      data: {
        ...token,
        digitalWalletName: input.digitalWalletName,
        activation: input.activationMethod
          ? {
              activationMethod: input.activationMethod,
              activationCode: newActivationCode(),
              emailAddress: user?.email ?? null,
              phone: user?.phone ?? null,
            }
          : null,
      },
    }));
  }

  /**
   * The tokens of a card follow its status as it is now (the card-status-tokens saga): read through the
   * cards contract, not taken from the event, so a redelivered or late event changes nothing. The tokens
   * are found in the tokens read model once it has caught up with the log.
   */
  async followCard(environment: Environment, change: CardStatusChange): Promise<void> {
    const program = this.ports.programs.programOf(change.distributorId);
    if (!program) return;
    const caller: Caller = {
      distributorId: change.distributorId,
      environment,
      program,
      requestId: change.correlationId,
    };
    const card = await this.ports.cards.getCard(caller, change.cardId);
    await this.ports.catchUp(environment);
    const tokens = forTenant(this.ports.readStore, caller);
    const tokenIds: string[] = [];
    for (let page = 0, hasMore = true; hasMore; page++) {
      const result = await tokens.find<TokenView>(
        tokensProjection.collection,
        { cardId: card.id },
        { sort: { field: 'createdAt', direction: 'asc' }, page, limit: TOKENS_PER_PAGE },
      );
      tokenIds.push(...result.items.filter((token) => token.status !== 'deleted').map((token) => token.id));
      hasMore = result.hasMore;
    }
    const context = { ...callerContext(this.clock.now(), caller), causationId: change.causationId };
    for (const tokenId of tokenIds) {
      await this.command(environment, tokenId, context, {
        type: 'FollowCard',
        data: { cardStatus: card.status, now: context.occurredAt },
      });
    }
  }

  private requestToken(
    caller: Caller,
    card: CardView,
    request: { digitalWalletName: 'applePay' | 'googlePay'; deviceId?: string; walletAccountId?: string },
  ): Promise<TokenView> {
    return this.newToken(caller, card, (token) => ({
      type: 'RequestToken',
      // `now` last, as before: nothing in the wallet's request sets the time.
      data: { ...token, provisioning: 'push', ...request, now: token.now },
    }));
  }

  /** A new token of the card, on a stream that must not exist yet: its id and reference are drawn here. */
  private newToken(
    caller: Caller,
    card: CardView,
    command: (token: NewToken) => RequestToken | ProvisionManually,
  ): Promise<TokenView> {
    const context = callerContext(this.clock.now(), caller);
    const tokenId = newId('tkn');
    return this.command(
      caller.environment,
      tokenId,
      context,
      command({
        tokenId,
        distributorId: caller.distributorId,
        cardId: card.id,
        userId: card.userId,
        cardStatus: card.status,
        tokenReferenceId: newTokenReferenceId(),
        now: context.occurredAt,
      }),
      true,
    );
  }

  private async command(
    environment: Environment,
    tokenId: string,
    context: CommandContext,
    command: TokenCommand,
    expectNew = false,
  ): Promise<TokenView> {
    const result = await handleCommand(
      this.ports.eventStore(environment),
      tokenDecider,
      tokenId,
      command,
      context,
      {
        expectNew,
      },
    );
    if (result.state.status === 'absent')
      throw new DomainError('not_found', `Token ${tokenId} was not found`);
    return toTokenView(result.state as TokenRecord);
  }
}
