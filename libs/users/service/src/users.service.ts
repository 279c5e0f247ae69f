import { Caller, Environment, FindPage, FindResult, isOwnedBy, ownedBy } from '@cip/shared/contracts';
import { CommandContext, EventStore, handleCommand, loadState, callerContext } from '@cip/shared/eventing';
import { forTenant, ReadStore } from '@cip/shared/read-store';
import { Clock, newId } from '@cip/shared/runtime';
import {
  decideUser,
  isUser,
  normaliseEmail,
  Phone,
  ShippingAddress,
  TargetStatus,
  UniqueValueKind,
  UniqueValueState,
  userDecider,
  UserRecord,
  UserState,
  uniqueValueDecider,
} from '@cip/users/domain';
import { toUserView, UserView, usersProjection } from '@cip/users/read-models';
import { createHash } from 'node:crypto';
import type { CreateUserInput, UserLifecycleApi, UserListFilter, UsersApi } from '@cip/users/contract';

/** A reservation older than this whose owner never came to exist was left by a creation that died. */
const ABANDONED_RESERVATION_MS = 30_000;

export interface UsersPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the users projection has caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
}

const uniqueStream = (distributorId: string, kind: UniqueValueKind, value: string) =>
  `uniq-${createHash('sha256').update(`${distributorId}|${kind}|${value}`).digest('hex').slice(0, 40)}`;

const phoneValue = (phone: Phone) => `${phone.country}${phone.number}`;

/**
 * The users context's command and query handlers. Uniqueness of email and phone within a distributor is
 * enforced with reservation streams appended before the user's own events, so that of two concurrent
 * creations with the same email exactly one succeeds.
 */
export class UsersService implements UsersApi, UserLifecycleApi {
  constructor(
    private readonly ports: UsersPorts,
    private readonly clock: Clock,
  ) {}

  private context(caller: Caller): CommandContext {
    return callerContext(this.clock.now(), caller);
  }

  async createUser(caller: Caller, input: CreateUserInput): Promise<UserView> {
    const userId = newId('usr');
    const context = this.context(caller);
    const command = {
      type: 'CreateUser' as const,
      data: {
        ...input,
        userId,
        distributorId: caller.distributorId,
        program: caller.program,
        now: context.occurredAt,
      },
    };
    // Refuse what the rules refuse before reserving anything.
    decideUser(command, { status: 'absent' });
    const store = this.ports.eventStore(caller.environment);
    const email = uniqueStream(caller.distributorId, 'email', normaliseEmail(input.email));
    await this.reserve(store, email, 'email', userId, context);
    try {
      const result = await handleCommand(store, userDecider, userId, command, context, { expectNew: true });
      return toUserView(result.state as UserRecord);
    } catch (error) {
      await this.release(store, email, 'email', userId, context);
      throw error;
    }
  }

  async getUser(caller: Caller, userId: string): Promise<UserView> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), userDecider, userId);
    return toUserView(this.owned(caller, userId, state));
  }

  async findUser(caller: Caller, userId: string): Promise<UserView | null> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), userDecider, userId);
    return isUser(state) && isOwnedBy(caller, state) ? toUserView(state) : null;
  }

  async listUsers(caller: Caller, filter: UserListFilter, page: FindPage): Promise<FindResult<UserView>> {
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).find<UserView>(
      usersProjection.collection,
      { status: filter.status || undefined, email: filter.email ? normaliseEmail(filter.email) : undefined },
      page,
    );
  }

  async setPhone(caller: Caller, userId: string, phone: Phone): Promise<UserView> {
    const store = this.ports.eventStore(caller.environment);
    const context = this.context(caller);
    const current = this.owned(caller, userId, (await loadState(store, userDecider, userId)).state);
    if (current.phone && phoneValue(current.phone) === phoneValue(phone)) return toUserView(current);
    const reservation = uniqueStream(caller.distributorId, 'phone', phoneValue(phone));
    await this.reserve(store, reservation, 'phone', userId, context);
    try {
      const result = await handleCommand(
        store,
        userDecider,
        userId,
        (state) => {
          this.owned(caller, userId, state);
          return { type: 'SetUserPhone' as const, data: { phone, now: context.occurredAt } };
        },
        context,
      );
      const previous =
        result.events[0]?.type === 'UserPhoneNumberSet' ? result.events[0].data.previousPhone : null;
      if (previous) {
        await this.release(
          store,
          uniqueStream(caller.distributorId, 'phone', phoneValue(previous)),
          'phone',
          userId,
          context,
        );
      }
      return toUserView(result.state as UserRecord);
    } catch (error) {
      await this.release(store, reservation, 'phone', userId, context);
      throw error;
    }
  }

  /** The distributor's own call (B2B only). */
  updateShippingAddress(caller: Caller, userId: string, address: ShippingAddress): Promise<UserView> {
    return this.shippingAddress(caller, userId, address, 'api');
  }

  /** The address a verified shipping KYC captured, allowed for every program (the KYC context's call). */
  setVerifiedShippingAddress(caller: Caller, userId: string, address: ShippingAddress): Promise<UserView> {
    return this.shippingAddress(caller, userId, address, 'kyc');
  }

  private shippingAddress(
    caller: Caller,
    userId: string,
    address: ShippingAddress,
    source: 'api' | 'kyc',
  ): Promise<UserView> {
    return this.command(caller, userId, (now) => ({
      type: 'UpdateShippingAddress',
      data: { shippingAddress: address, source, program: caller.program, now },
    }));
  }

  async changeStatus(
    caller: Caller,
    userId: string,
    to: TargetStatus,
    reason?: string,
    cause?: string,
  ): Promise<UserView> {
    return this.command(caller, userId, (now) => ({
      type: 'ChangeUserStatus',
      data: { to, reason, cause, now },
    }));
  }

  private async command(
    caller: Caller,
    userId: string,
    build: (now: string) => Parameters<typeof decideUser>[0],
  ): Promise<UserView> {
    const context = this.context(caller);
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      userDecider,
      userId,
      (state) => {
        this.owned(caller, userId, state);
        return build(context.occurredAt);
      },
      context,
    );
    return toUserView(result.state as UserRecord);
  }

  /** The user, if it exists and belongs to the caller; another tenant's user is simply not found. */
  private owned(caller: Caller, userId: string, state: UserState): UserRecord {
    return ownedBy(caller, isUser(state) ? state : null, 'User', userId);
  }

  private async reserve(
    store: EventStore,
    streamId: string,
    kind: UniqueValueKind,
    ownerId: string,
    context: CommandContext,
  ): Promise<void> {
    await handleCommand(
      store,
      uniqueValueDecider,
      streamId,
      async (state: UniqueValueState) => ({
        type: 'ReserveUniqueValue' as const,
        data: {
          kind,
          ownerId,
          now: context.occurredAt,
          currentOwnerAbandoned: await this.abandoned(store, state),
        },
      }),
      context,
      { expectNew: true },
    );
  }

  private async abandoned(store: EventStore, state: UniqueValueState): Promise<boolean> {
    if (!state.ownerId || !state.reservedAt) return false;
    if (this.clock.now().getTime() - Date.parse(state.reservedAt) < ABANDONED_RESERVATION_MS) return false;
    return (await store.readStream(state.ownerId, { maxCount: 1 })).length === 0;
  }

  private async release(
    store: EventStore,
    streamId: string,
    kind: UniqueValueKind,
    ownerId: string,
    context: CommandContext,
  ): Promise<void> {
    try {
      await handleCommand(
        store,
        uniqueValueDecider,
        streamId,
        { type: 'ReleaseUniqueValue', data: { kind, ownerId, now: context.occurredAt } },
        context,
      );
    } catch {
      // Best effort: a reservation left behind is taken over once its owner is seen not to exist
      // (see `abandoned`), so failing to release never blocks the value for good.
    }
  }
}
