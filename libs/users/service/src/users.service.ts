import {
  Caller,
  DomainError,
  Environment,
  FindPage,
  FindResult,
  isOwnedBy,
  ownedBy,
} from '@cip/shared/contracts';
import {
  CommandContext,
  envelope,
  EventStore,
  handleCommand,
  loadState,
  callerContext,
  PersonalDataVault,
  KeptStreamStates,
  WrongExpectedRevisionError,
} from '@cip/shared/eventing';
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
  decideUniqueValue,
} from '@cip/users/domain';
import { toUserView, UserView, usersProjection } from '@cip/users/read-models';
import { createHash } from 'node:crypto';
import type {
  CreateUserInput,
  UserLifecycleApi,
  UserListFilter,
  UsersApi,
  UserStatus,
} from '@cip/users/contract';

/** Users whose folded state `userStatus` keeps. */
const USERS_HELD = 10_000;
/** A reservation older than this whose owner never came to exist was left by a creation that died. */
const ABANDONED_RESERVATION_MS = 30_000;

export interface UsersPorts {
  eventStore(environment: Environment): EventStore;
  /**
   * The log as stored, personal data sealed: for reads that need no personal field (`userStatus`). Without
   * it (tools that only write) those reads go through `eventStore`.
   */
  storedEventStore?(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the users projection has caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  /** The environment's personal-data keys: the keyed hash of reservations, erasure. */
  personalData(environment: Environment): Pick<PersonalDataVault, 'blindIndex' | 'erase'>;
}

/** Who erased a user and why (`UserErased`): an operator, at a data subject's request. */
export interface UserErasure {
  erasedBy: string;
  reason: string;
}

const uniqueValue = (distributorId: string, kind: UniqueValueKind, value: string) =>
  `${distributorId}|${kind}|${value}`;

/**
 * Reservation streams named before reservations were keyed: a plain hash of the value, which anyone can
 * recompute from a guessed email. Still checked (their owners keep their values) and released, never made.
 */
const legacyUniqueStream = (distributorId: string, kind: UniqueValueKind, value: string) =>
  `uniq-${createHash('sha256')
    .update(uniqueValue(distributorId, kind, value))
    .digest('hex')
    .slice(0, 40)}`;

const phoneValue = (phone: Phone) => `${phone.country}${phone.number}`;

/**
 * The users context's command and query handlers. Uniqueness of email and phone within a distributor is
 * enforced with reservation streams appended with `no_stream` (or the revision read) together with, or
 * before, the user's own events, so that of two concurrent creations with the same email exactly one
 * succeeds.
 */
export class UsersService implements UsersApi, UserLifecycleApi {
  /**
   * Per log, the users whose status was asked lately (every card payment asks for its user's): folded from
   * the log as stored where the ports give it (the platform's do), so what is kept holds personal data
   * sealed only.
   */
  private readonly statuses = new KeptStreamStates(userDecider, USERS_HELD);

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
    const email = this.reservation(caller, 'email', normaliseEmail(input.email));
    const created = await this.createWithReservation(store, email, command, context);
    if (created) return toUserView(created);
    await this.reserve(store, email, userId, context);
    try {
      const result = await handleCommand(store, userDecider, userId, command, context, { expectNew: true });
      return toUserView(result.state as UserRecord);
    } catch (error) {
      await this.release(store, email, userId, context);
      throw error;
    }
  }

  /**
   * Erases the user's personal data at the person's request (an operator's action): an open user is
   * deleted first, its email and phone reservations are released, `UserErased` records who and why, and
   * the user's key is deleted, after which every personal field of its events and its KYCs' reads as null.
   * Running it again completes an erasure that stopped half way (the key is deleted last).
   */
  async eraseUser(caller: Caller, userId: string, erasure: UserErasure): Promise<UserView> {
    const store = this.ports.eventStore(caller.environment);
    const context = this.context(caller);
    let user = this.owned(caller, userId, (await loadState(store, userDecider, userId)).state);
    if (!user.erasedAt) {
      if (user.status !== 'revoked' && user.status !== 'deleted') {
        await this.changeStatus(caller, userId, 'deleted', `erasure: ${erasure.reason}`);
      }
      if (user.email) {
        await this.release(store, this.reservation(caller, 'email', user.email), userId, context);
      }
      if (user.phone) {
        await this.release(store, this.reservation(caller, 'phone', phoneValue(user.phone)), userId, context);
      }
      const result = await handleCommand(
        store,
        userDecider,
        userId,
        { type: 'EraseUser', data: { ...erasure, now: context.occurredAt } },
        context,
      );
      user = result.state as UserRecord;
    }
    await this.ports.personalData(caller.environment).erase(userId, context.occurredAt);
    return toUserView(user);
  }

  async getUser(caller: Caller, userId: string): Promise<UserView> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), userDecider, userId);
    return toUserView(this.owned(caller, userId, state));
  }

  async findUser(caller: Caller, userId: string): Promise<UserView | null> {
    const { state } = await loadState(this.ports.eventStore(caller.environment), userDecider, userId);
    return isUser(state) && isOwnedBy(caller, state) ? toUserView(state) : null;
  }

  /**
   * The status from the log as stored: the user's personal fields stay sealed (the decider's evolve carries
   * them along unread), so no data key is fetched and nothing is decrypted.
   */
  async userStatus(caller: Caller, userId: string): Promise<UserStatus | null> {
    const { environment } = caller;
    const log = this.ports.storedEventStore?.(environment) ?? this.ports.eventStore(environment);
    const { state } = await this.statuses.load(log, userId);
    return isUser(state) && isOwnedBy(caller, state) ? state.status : null;
  }

  async findUserByPhone(caller: Caller, phone: string): Promise<UserView | null> {
    const store = this.ports.eventStore(caller.environment);
    const reservation = this.reservation(caller, 'phone', phone);
    for (const streamId of [reservation.streamId, reservation.legacyStreamId]) {
      const { ownerId } = (await loadState(store, uniqueValueDecider, streamId)).state;
      const user = ownerId ? await this.findUser(caller, ownerId) : null;
      // A reservation outlives a phone change until released: the user must still hold the number.
      if (user?.phone && phoneValue(user.phone) === phone) return user;
    }
    return null;
  }

  /** The distributor a user belongs to, for operators who name a user only (not for API callers). */
  async ownerOf(environment: Environment, userId: string): Promise<string> {
    const { state } = await loadState(this.ports.eventStore(environment), userDecider, userId);
    if (!isUser(state)) throw new DomainError('not_found', `User ${userId} was not found in ${environment}`);
    return state.distributorId;
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
    const reservation = this.reservation(caller, 'phone', phoneValue(phone));
    await this.reserve(store, reservation, userId, context);
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
        await this.release(store, this.reservation(caller, 'phone', phoneValue(previous)), userId, context);
      }
      return toUserView(result.state as UserRecord);
    } catch (error) {
      await this.release(store, reservation, userId, context);
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
    expectedFrom?: UserStatus,
  ): Promise<UserView> {
    return this.command(caller, userId, (now) => ({
      type: 'ChangeUserStatus',
      data: { to, reason, cause, expectedFrom, now },
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

  /**
   * The reservation of a value: its stream is named by a keyed hash (the platform's master key), so the
   * log does not disclose which emails or phones it holds to whoever can hash guesses.
   */
  private reservation(caller: Caller, kind: UniqueValueKind, value: string): Reservation {
    const unique = uniqueValue(caller.distributorId, kind, value);
    return {
      kind,
      streamId: `uniq-${this.ports.personalData(caller.environment).blindIndex(unique).slice(0, 40)}`,
      legacyStreamId: legacyUniqueStream(caller.distributorId, kind, value),
    };
  }

  private async reserve(
    store: EventStore,
    reservation: Reservation,
    ownerId: string,
    context: CommandContext,
  ): Promise<void> {
    const legacy = (await loadState(store, uniqueValueDecider, reservation.legacyStreamId)).state;
    if (legacy.ownerId && legacy.ownerId !== ownerId) {
      // The decider's own refusal, on the legacy stream (nothing is written to it: its events are dropped).
      decideUniqueValue(
        {
          type: 'ReserveUniqueValue',
          data: {
            kind: reservation.kind,
            ownerId,
            now: context.occurredAt,
            currentOwnerAbandoned: await this.abandoned(store, legacy),
          },
        },
        legacy,
      );
    }
    await handleCommand(
      store,
      uniqueValueDecider,
      reservation.streamId,
      async (state: UniqueValueState) => ({
        type: 'ReserveUniqueValue' as const,
        data: {
          kind: reservation.kind,
          ownerId,
          now: context.occurredAt,
          currentOwnerAbandoned: await this.abandoned(store, state),
        },
      }),
      context,
      { expectNew: true },
    );
  }

  /**
   * The common case of a creation in one atomic append where the store offers it (`appendMany`): the
   * reservation of a value nobody ever reserved and the new user's events go into the same group commit, both
   * appended with `no_stream`, so uniqueness costs no second fsync wait and leaves nothing to release.
   * Returns null when that case does not apply (no `appendMany`, a legacy reservation, or the reservation
   * stream exists: taken, released or abandoned), for the two-step path to decide on the stream as it is.
   */
  private async createWithReservation(
    store: EventStore,
    reservation: Reservation,
    command: Parameters<typeof decideUser>[0] & { type: 'CreateUser' },
    context: CommandContext,
  ): Promise<UserRecord | null> {
    if (!store.appendMany) return null;
    const { userId } = command.data;
    const reserved = decideUniqueValue(
      {
        type: 'ReserveUniqueValue',
        data: {
          kind: reservation.kind,
          ownerId: userId,
          now: context.occurredAt,
          currentOwnerAbandoned: false,
        },
      },
      uniqueValueDecider.initialState(),
    );
    const userEvents = decideUser(command, userDecider.initialState());
    try {
      await store.appendMany([
        {
          streamId: reservation.streamId,
          events: reserved.map((e) => envelope(e, context)),
          expectedRevision: 'no_stream',
        },
        // Writes nothing: a value reserved under its legacy stream (an earlier version's) is checked in the
        // same transaction rather than read before it, and sends the creation down the path that handles it.
        { streamId: reservation.legacyStreamId, events: [], expectedRevision: 'no_stream' },
        {
          streamId: userId,
          events: userEvents.map((e) => envelope(e, context)),
          expectedRevision: 'no_stream',
        },
      ]);
    } catch (error) {
      if (
        error instanceof WrongExpectedRevisionError &&
        (error.streamId === reservation.streamId || error.streamId === reservation.legacyStreamId)
      ) {
        return null;
      }
      throw error;
    }
    return userEvents.reduce(userDecider.evolve, userDecider.initialState()) as UserRecord;
  }

  private async abandoned(store: EventStore, state: UniqueValueState): Promise<boolean> {
    if (!state.ownerId || !state.reservedAt) return false;
    if (this.clock.now().getTime() - Date.parse(state.reservedAt) < ABANDONED_RESERVATION_MS) return false;
    return (await store.readStream(state.ownerId, { maxCount: 1 })).length === 0;
  }

  private async release(
    store: EventStore,
    reservation: Reservation,
    ownerId: string,
    context: CommandContext,
  ): Promise<void> {
    for (const streamId of [reservation.streamId, reservation.legacyStreamId]) {
      try {
        await handleCommand(
          store,
          uniqueValueDecider,
          streamId,
          { type: 'ReleaseUniqueValue', data: { kind: reservation.kind, ownerId, now: context.occurredAt } },
          context,
        );
      } catch {
        // Best effort: a reservation left behind is taken over once its owner is seen not to exist
        // (see `abandoned`), so failing to release never blocks the value for good.
      }
    }
  }
}

interface Reservation {
  kind: UniqueValueKind;
  streamId: string;
  legacyStreamId: string;
}
