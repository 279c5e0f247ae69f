import {
  CARD_HOLDS,
  CARD_VERIFICATION_METHODS,
  type CardOperationsApi,
  type CardVerificationApi,
  type CardVerificationOutcome,
  type CardVerificationRecord,
  type CardHold,
  type OperatorAction,
} from '@cip/cards/contract';
import { cardDecider, CardOperatorCommand, CardRecord, isCard } from '@cip/cards/domain';
import { CardView, toCardView } from '@cip/cards/read-models';
import { ApiFieldError, DomainError, Environment } from '@cip/shared/contracts';
import { CommandContext, EventStore, handleCommand } from '@cip/shared/eventing';
import { Clock, newId } from '@cip/shared/runtime';

export interface CardOperationsPorts {
  eventStore(environment: Environment): EventStore;
}

/**
 * Concurrent verification records on one card each retry on the fresh stream after a conflict. Only the
 * first three failures (the third blocks) and the resets append anything, so a handful of attempts is
 * always enough; the default five would do for failures alone.
 */
const VERIFICATION_ATTEMPTS = 10;

/**
 * Operator holds, the PIN/CVV2 unblock and the PIN/CVV2 outcomes of authorizations, on any distributor's
 * card of an environment (the callers are operators and the authorizations context, never a distributor).
 * Each command is decided by the card decider on the card's stream; the events carry the card's
 * distributor, as every card event does.
 */
export class CardOperationsService implements CardOperationsApi, CardVerificationApi {
  constructor(
    private readonly ports: CardOperationsPorts,
    private readonly clock: Clock,
  ) {}

  placeHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: OperatorAction,
  ): Promise<CardView> {
    return this.holdCommand('PlaceHold', environment, cardId, hold, action);
  }

  liftHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: OperatorAction,
  ): Promise<CardView> {
    return this.holdCommand('LiftHold', environment, cardId, hold, action);
  }

  unblockCard(environment: Environment, cardId: string, action: OperatorAction): Promise<CardView> {
    return this.operatorCommand(environment, cardId, action, (now) => ({
      type: 'UnblockCard',
      data: { ...actionData(action), now },
    }));
  }

  async recordVerification(
    environment: Environment,
    cardId: string,
    record: CardVerificationRecord,
  ): Promise<CardVerificationOutcome> {
    refuseInvalid([
      ...(typeof record?.authorizationId === 'string' && record.authorizationId
        ? []
        : [{ field: 'authorizationId', message: 'authorizationId is required' }]),
      ...(CARD_VERIFICATION_METHODS.includes(record?.method)
        ? []
        : [{ field: 'method', message: `method must be one of ${CARD_VERIFICATION_METHODS.join(', ')}` }]),
      ...(typeof record?.ok === 'boolean' ? [] : [{ field: 'ok', message: 'ok must be true or false' }]),
    ]);
    const card = await this.onCard(
      environment,
      cardId,
      record.authorizationId,
      (now) => ({
        type: 'RecordVerification',
        data: { authorizationId: record.authorizationId, method: record.method, ok: record.ok, now },
      }),
      VERIFICATION_ATTEMPTS,
    );
    return {
      cardId: card.cardId,
      status: card.status,
      blocked: card.blocks.includes('pin_cvv_attempts'),
      consecutiveFailures: card.consecutiveFailures,
    };
  }

  private holdCommand(
    type: 'PlaceHold' | 'LiftHold',
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: OperatorAction,
  ): Promise<CardView> {
    return this.operatorCommand(
      environment,
      cardId,
      action,
      (now) => ({ type, data: { hold, ...actionData(action), now } }),
      hold,
    );
  }

  private async operatorCommand(
    environment: Environment,
    cardId: string,
    action: OperatorAction,
    build: (now: string) => CardOperatorCommand,
    hold?: CardHold,
  ): Promise<CardView> {
    refuseInvalid([
      ...(['operator', 'reason'] as const)
        .filter((field) => typeof action?.[field] !== 'string' || !action[field].trim())
        .map((field) => ({ field, message: `${field} must not be empty` })),
      ...(hold === undefined || CARD_HOLDS.includes(hold)
        ? []
        : [{ field: 'hold', message: `hold must be one of ${CARD_HOLDS.join(', ')}` }]),
    ]);
    return toCardView(await this.onCard(environment, cardId, newId('ops'), build));
  }

  /** Decides the command on the card's stream; the events carry the card's own distributor. */
  private async onCard(
    environment: Environment,
    cardId: string,
    correlationId: string,
    build: (now: string) => CardOperatorCommand,
    maxAttempts?: number,
  ): Promise<CardRecord> {
    const context: CommandContext = {
      occurredAt: this.clock.now().toISOString(),
      environment,
      correlationId,
      causationId: correlationId,
    };
    const result = await handleCommand(
      this.ports.eventStore(environment),
      cardDecider,
      cardId,
      (state) => {
        if (!isCard(state))
          throw new DomainError('not_found', `Card ${cardId} was not found in ${environment}`);
        // Known once the stream is read: the context is read when the events are appended, just after.
        context.distributorId = state.distributorId;
        return build(context.occurredAt);
      },
      context,
      { maxAttempts },
    );
    return result.state as CardRecord;
  }
}

const actionData = (action: OperatorAction) => ({
  reason: action.reason.trim(),
  operator: action.operator.trim(),
});

/** Whatever transport carried the call, a malformed one is a 400 that changes nothing. */
function refuseInvalid(errors: ApiFieldError[]): void {
  if (errors.length > 0) {
    throw new DomainError('validation_error', errors.map((error) => error.message).join('; '), errors);
  }
}
