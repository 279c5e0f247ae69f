import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  ChangeUserStatus,
  CreateUser,
  EraseUser,
  SetUserPhone,
  UpdateShippingAddress,
  UserCommand,
} from './user.commands';
import { STATUS_EVENT_TYPES, STATUS_OF_EVENT, TargetStatus, UserEvent, userEvents } from './user.events';
import { normaliseEmail, Phone, ShippingAddress, UserStatus } from './user.types';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface UserRecord {
  status: UserStatus;
  userId: string;
  distributorId: string;
  /** Personal fields: null once the user was erased (`erasedAt`). */
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  countryOfResidence: string;
  phone: Phone | null;
  shippingAddress: ShippingAddress | null;
  /** When an operator erased the user's personal data; null while it is kept. */
  erasedAt: string | null;
  /** Causes of the status changes applied so far (see ChangeUserStatus): each takes effect once. */
  appliedCauses: readonly string[];
  createdAt: string;
  updatedAt: string;
}

export type UserState = { status: 'absent' } | UserRecord;

export const isUser = (state: UserState): state is UserRecord => state.status !== 'absent';

/**
 * Which statuses each status command may start from. Revoked and deleted are terminal: nothing leaves
 * them. Asking for the status the user already has is accepted and changes nothing, so sagas can retry.
 */
const STATUS_SOURCES: Record<TargetStatus, readonly UserStatus[]> = {
  active: ['onboarding', 'unverified', 'frozen', 'disabled'],
  // Operators only (the spec never expects it to fire): identity data found no longer verified.
  unverified: ['onboarding', 'active', 'frozen', 'disabled'],
  frozen: ['onboarding', 'unverified', 'active'],
  disabled: ['onboarding', 'unverified', 'active', 'frozen'],
  revoked: ['onboarding', 'unverified', 'active', 'frozen', 'disabled'],
  deleted: ['onboarding', 'unverified', 'active', 'frozen', 'disabled'],
};

const TERMINAL: readonly UserStatus[] = ['revoked', 'deleted'];

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function existing(state: UserState): UserRecord {
  if (!isUser(state)) throw new DomainError('not_found', 'User was not found');
  return state;
}

function modifiable(state: UserState): UserRecord {
  const user = existing(state);
  if (TERMINAL.includes(user.status) || user.erasedAt) {
    throw new DomainError(
      'invalid_state_transition',
      `User ${user.userId} is ${user.status} and can no longer change`,
    );
  }
  return user;
}

function createUser({ data }: CreateUser, state: UserState): UserEvent[] {
  if (isUser(state)) throw new DomainError('invalid_state_transition', `User ${data.userId} already exists`);
  const country = data.countryOfResidence.toUpperCase();
  if (!data.program.allowedCountries.includes(country)) {
    throw new DomainError(
      'country_not_allowed',
      `Users residing in ${country} cannot be onboarded in this program`,
      [{ field: 'countryOfResidence', message: `${country} is not in the program's allowed countries` }],
    );
  }
  if (data.shippingAddress && !data.program.b2b) {
    throw new DomainError(
      'forbidden',
      'Only B2B distributors may send shipping details when creating a user',
    );
  }
  return [
    {
      type: 'UserCreated',
      data: {
        userId: data.userId,
        distributorId: data.distributorId,
        email: normaliseEmail(data.email),
        firstName: data.firstName.trim(),
        lastName: data.lastName.trim(),
        countryOfResidence: country,
        shippingAddress: data.shippingAddress ?? null,
        createdAt: data.now,
      },
    },
  ];
}

function setUserPhone({ data }: SetUserPhone, state: UserState): UserEvent[] {
  const user = modifiable(state);
  if (user.phone?.country === data.phone.country && user.phone.number === data.phone.number) return [];
  return [
    {
      type: 'UserPhoneNumberSet',
      data: { userId: user.userId, phone: data.phone, previousPhone: user.phone, at: data.now },
    },
  ];
}

const ADDRESS_FIELDS = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'] as const;
const sameAddress = (a: ShippingAddress, b: ShippingAddress) =>
  ADDRESS_FIELDS.every((f) => (a[f] ?? null) === (b[f] ?? null));

function updateShippingAddress({ data }: UpdateShippingAddress, state: UserState): UserEvent[] {
  const user = modifiable(state);
  if (data.source === 'api' && !data.program.b2b) {
    throw new DomainError('forbidden', 'Address changes are available to B2B distributors only');
  }
  if (user.shippingAddress && sameAddress(user.shippingAddress, data.shippingAddress)) return [];
  return [
    {
      type: 'UserShippingAddressUpdated',
      data: { userId: user.userId, shippingAddress: data.shippingAddress, source: data.source, at: data.now },
    },
  ];
}

function changeUserStatus({ data }: ChangeUserStatus, state: UserState): UserEvent[] {
  const user = existing(state);
  if (data.cause !== undefined && user.appliedCauses.includes(data.cause)) return [];
  if (user.status === data.to) return [];
  if (data.expectedFrom !== undefined && user.status !== data.expectedFrom) {
    throw new DomainError(
      'invalid_state_transition',
      `The user is ${user.status} now, not ${data.expectedFrom}: it changed since it was read`,
    );
  }
  if (!STATUS_SOURCES[data.to].includes(user.status)) {
    throw new DomainError('invalid_state_transition', `A ${user.status} user cannot become ${data.to}`);
  }
  return [
    {
      type: STATUS_EVENT_TYPES[data.to],
      data: {
        userId: user.userId,
        previousStatus: user.status,
        reason: data.reason ?? null,
        ...(data.cause !== undefined ? { cause: data.cause } : {}),
        at: data.now,
      },
    },
  ];
}

/**
 * Erasure closes nothing by itself: the user must be closed first (revoked or deleted; the operators'
 * erasure deletes an open user before erasing it), so no card or wallet keeps serving a person whose
 * identity is gone. Erasing an erased user changes nothing.
 */
function eraseUser({ data }: EraseUser, state: UserState): UserEvent[] {
  const user = existing(state);
  if (user.erasedAt) return [];
  if (!TERMINAL.includes(user.status)) {
    throw new DomainError(
      'invalid_state_transition',
      `User ${user.userId} is ${user.status}: only a revoked or deleted user can be erased`,
    );
  }
  return [
    {
      type: 'UserErased',
      data: { userId: user.userId, erasedBy: data.erasedBy, reason: data.reason, at: data.now },
    },
  ];
}

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser':
      return createUser(command, state);
    case 'SetUserPhone':
      return setUserPhone(command, state);
    case 'UpdateShippingAddress':
      return updateShippingAddress(command, state);
    case 'ChangeUserStatus':
      return changeUserStatus(command, state);
    case 'EraseUser':
      return eraseUser(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as UserCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserCreated':
      return {
        ...event.data,
        status: 'onboarding',
        phone: null,
        erasedAt: null,
        appliedCauses: [],
        updatedAt: event.data.createdAt,
      };
    case 'UserPhoneNumberSet':
      return isUser(state) ? { ...state, phone: event.data.phone, updatedAt: event.data.at } : state;
    case 'UserShippingAddressUpdated':
      return isUser(state)
        ? { ...state, shippingAddress: event.data.shippingAddress, updatedAt: event.data.at }
        : state;
    case 'UserErased':
      return isUser(state)
        ? {
            ...state,
            email: null,
            firstName: null,
            lastName: null,
            phone: null,
            shippingAddress: null,
            erasedAt: event.data.at,
            updatedAt: event.data.at,
          }
        : state;
    case 'UserActivated':
    case 'UserUnverified':
    case 'UserFrozen':
    case 'UserDisabled':
    case 'UserRevoked':
    case 'UserDeleted':
      if (!isUser(state)) return state;
      return {
        ...state,
        status: STATUS_OF_EVENT[event.type],
        appliedCauses: event.data.cause ? [...state.appliedCauses, event.data.cause] : state.appliedCauses,
        updatedAt: event.data.at,
      };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  decide: decideUser,
  evolve: evolveUser,
  initialState: () => ({ status: 'absent' }),
  events: userEvents,
};
