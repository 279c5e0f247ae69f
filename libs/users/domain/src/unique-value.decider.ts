import { Decider, DomainError, DomainEvent, domainEventReader } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// Reservation of a value that must be unique within a distributor (a user's email or phone). One stream
// per value (`uniq-<hash>`), appended with an expected revision, so that of two concurrent creations with
// the same email exactly one reservation wins.
// ---------------------------------------------------------------------------------------------------

export type UniqueValueKind = 'email' | 'phone';

export type UniqueValueReserved = DomainEvent<
  'UniqueValueReserved',
  { kind: UniqueValueKind; ownerId: string; at: string }
>;
export type UniqueValueReleased = DomainEvent<
  'UniqueValueReleased',
  { kind: UniqueValueKind; ownerId: string; at: string }
>;
export type UniqueValueEvent = UniqueValueReserved | UniqueValueReleased;

export interface ReserveUniqueValue {
  type: 'ReserveUniqueValue';
  data: {
    kind: UniqueValueKind;
    ownerId: string;
    now: string;
    /**
     * The service found that the current owner never came to exist (its creation died between the
     * reservation and the user's first event) and that the reservation is old enough to be abandoned.
     */
    currentOwnerAbandoned: boolean;
  };
}

export interface ReleaseUniqueValue {
  type: 'ReleaseUniqueValue';
  data: { kind: UniqueValueKind; ownerId: string; now: string };
}

export type UniqueValueCommand = ReserveUniqueValue | ReleaseUniqueValue;

export interface UniqueValueState {
  ownerId: string | null;
  reservedAt: string | null;
}

const describeKind = (kind: UniqueValueKind) => (kind === 'email' ? 'email address' : 'phone number');

export function decideUniqueValue(command: UniqueValueCommand, state: UniqueValueState): UniqueValueEvent[] {
  const { data } = command;
  switch (command.type) {
    case 'ReserveUniqueValue': {
      if (state.ownerId === data.ownerId) return [];
      if (state.ownerId && !command.data.currentOwnerAbandoned) {
        throw new DomainError(
          'duplicate_user_error',
          `A user with this ${describeKind(data.kind)} already exists: ${state.ownerId}`,
          [{ field: data.kind, message: `already used by ${state.ownerId}` }],
        );
      }
      return [
        { type: 'UniqueValueReserved', data: { kind: data.kind, ownerId: data.ownerId, at: data.now } },
      ];
    }
    case 'ReleaseUniqueValue':
      if (state.ownerId !== data.ownerId) return [];
      return [
        { type: 'UniqueValueReleased', data: { kind: data.kind, ownerId: data.ownerId, at: data.now } },
      ];
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as UniqueValueCommand).type}`);
    }
  }
}

export function evolveUniqueValue(state: UniqueValueState, event: UniqueValueEvent): UniqueValueState {
  switch (event.type) {
    case 'UniqueValueReserved':
      return { ownerId: event.data.ownerId, reservedAt: event.data.at };
    case 'UniqueValueReleased':
      return { ownerId: null, reservedAt: null };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const uniqueValueDecider: Decider<UniqueValueCommand, UniqueValueEvent, UniqueValueState> = {
  decide: decideUniqueValue,
  evolve: evolveUniqueValue,
  initialState: () => ({ ownerId: null, reservedAt: null }),
  events: domainEventReader<UniqueValueEvent>(),
};
