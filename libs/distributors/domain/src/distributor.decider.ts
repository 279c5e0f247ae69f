import { normalizeSettlementAddress, programAuthorizationProblems } from '@cip/authorizations/contract';
import { Decider, DomainError, Environment } from '@cip/shared/contracts';
import { THREE_DS_DEADLINE_RANGE_SECONDS } from '@cip/three-ds/contract';
import { distributorEvents, type DistributorEvent } from './distributor.events';
import type { ApiKeyRecord, ProgramConfig } from './distributor.types';

// ---------------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------------

export interface NewApiKey {
  keyId: string;
  environment: Environment;
  keyHash: string;
  last4: string;
  label: string | null;
}

export type DistributorCommand =
  | {
      type: 'CreateDistributor';
      data: { distributorId: string; name: string; program: ProgramConfig; isDefault: boolean; now: string };
    }
  | { type: 'ConfigureProgram'; data: { program: ProgramConfig; now: string } }
  /** Issuing a key whose hash is already registered changes nothing (bootstrap keys on every start). */
  | { type: 'IssueApiKey'; data: { key: NewApiKey; now: string } }
  | { type: 'RollApiKey'; data: { keyId: string; replacement: NewApiKey; now: string } }
  | { type: 'DeleteApiKey'; data: { keyId: string; now: string } };

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface DistributorRecord {
  distributorId: string;
  name: string;
  program: ProgramConfig;
  isDefault: boolean;
  keys: ApiKeyRecord[];
  createdAt: string;
  updatedAt: string;
}

export type DistributorState = { status: 'absent' } | ({ status: 'active' } & DistributorRecord);

const existing = (state: DistributorState) => {
  if (state.status === 'absent') throw new DomainError('not_found', 'Distributor was not found');
  return state;
};

function activeKey(state: DistributorRecord, keyId: string): ApiKeyRecord {
  const key = state.keys.find((k) => k.keyId === keyId);
  if (!key) throw new DomainError('not_found', `API key ${keyId} was not found`);
  if (key.status === 'revoked')
    throw new DomainError('invalid_state_transition', `API key ${keyId} is already revoked`);
  return key;
}

/**
 * A program as it may be recorded: its authorization settings (when it has its own) valid, the settlement
 * address in its checksummed spelling. Refused with every problem named, so the operator fixes them at once.
 */
function validProgram(program: ProgramConfig): ProgramConfig {
  validThreeDs(program);
  const settings = program.authorization;
  if (!settings) return program;
  const problems = programAuthorizationProblems(settings);
  if (problems.length > 0) {
    throw new DomainError(
      'validation_error',
      `Invalid authorization settings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      problems.map((p) => ({ field: `program.authorization.${p.field}`, message: p.message })),
    );
  }
  return {
    ...program,
    authorization: { ...settings, settlementAddress: normalizeSettlementAddress(settings.settlementAddress) },
  };
}

/** A program's 3DS challenge deadline: whole seconds, 1 to 10 minutes (issue 13). */
function validThreeDs(program: ProgramConfig): void {
  const seconds = program.threeDs?.challengeDeadlineSeconds;
  if (seconds === undefined) return;
  const { min, max } = THREE_DS_DEADLINE_RANGE_SECONDS;
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) {
    throw new DomainError(
      'validation_error',
      `Invalid 3DS settings: the challenge deadline must be ${min} to ${max} seconds`,
      [
        {
          field: 'program.threeDs.challengeDeadlineSeconds',
          message: `must be a whole number of seconds from ${min} to ${max}`,
        },
      ],
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Decide / evolve
// ---------------------------------------------------------------------------------------------------

export function decideDistributor(command: DistributorCommand, state: DistributorState): DistributorEvent[] {
  switch (command.type) {
    case 'CreateDistributor': {
      if (state.status !== 'absent') return [];
      const { distributorId, name, isDefault, now } = command.data;
      const program = validProgram(command.data.program);
      return [
        { type: 'DistributorCreated', data: { distributorId, name, program, isDefault, createdAt: now } },
      ];
    }
    case 'ConfigureProgram': {
      const distributor = existing(state);
      return [
        {
          type: 'DistributorProgramConfigured',
          data: {
            distributorId: distributor.distributorId,
            program: validProgram(command.data.program),
            at: command.data.now,
          },
        },
      ];
    }
    case 'IssueApiKey': {
      const distributor = existing(state);
      if (distributor.keys.some((k) => k.keyHash === command.data.key.keyHash)) return [];
      return [
        {
          type: 'ApiKeyIssued',
          data: { distributorId: distributor.distributorId, ...command.data.key, at: command.data.now },
        },
      ];
    }
    case 'RollApiKey': {
      const distributor = existing(state);
      const old = activeKey(distributor, command.data.keyId);
      const { replacement, now } = command.data;
      if (replacement.environment !== old.environment) {
        throw new DomainError('validation_error', 'A rolled key stays in its environment');
      }
      return [
        {
          type: 'ApiKeyRevoked',
          data: { distributorId: distributor.distributorId, keyId: old.keyId, reason: 'rolled', at: now },
        },
        { type: 'ApiKeyIssued', data: { distributorId: distributor.distributorId, ...replacement, at: now } },
      ];
    }
    case 'DeleteApiKey': {
      const distributor = existing(state);
      const key = activeKey(distributor, command.data.keyId);
      return [
        {
          type: 'ApiKeyRevoked',
          data: {
            distributorId: distributor.distributorId,
            keyId: key.keyId,
            reason: 'deleted',
            at: command.data.now,
          },
        },
      ];
    }
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as DistributorCommand).type}`);
    }
  }
}

export function evolveDistributor(state: DistributorState, event: DistributorEvent): DistributorState {
  switch (event.type) {
    case 'DistributorCreated':
      return { status: 'active', ...event.data, keys: [], updatedAt: event.data.createdAt };
    case 'DistributorProgramConfigured':
      return state.status === 'absent'
        ? state
        : { ...state, program: event.data.program, updatedAt: event.data.at };
    case 'ApiKeyIssued': {
      if (state.status === 'absent') return state;
      const { keyId, environment, keyHash, last4, label, at } = event.data;
      const key: ApiKeyRecord = {
        keyId,
        environment,
        keyHash,
        last4,
        label,
        status: 'active',
        createdAt: at,
        revokedAt: null,
      };
      return { ...state, keys: [...state.keys, key], updatedAt: at };
    }
    case 'ApiKeyRevoked':
      if (state.status === 'absent') return state;
      return {
        ...state,
        keys: state.keys.map((k) =>
          k.keyId === event.data.keyId ? { ...k, status: 'revoked', revokedAt: event.data.at } : k,
        ),
        updatedAt: event.data.at,
      };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const distributorDecider: Decider<DistributorCommand, DistributorEvent, DistributorState> = {
  decide: decideDistributor,
  evolve: evolveDistributor,
  initialState: () => ({ status: 'absent' }),
  events: distributorEvents,
};
