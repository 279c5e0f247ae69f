import {
  DECISIONING_ON_TIMEOUT,
  DECISIONING_TIMEOUT_MS,
  type DecisioningOnTimeout,
} from '@cip/authorizations/contract';
import { Decider, domainEventReader, DomainError, type DomainEvent } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// The real-time decisioning configuration of one distributor in one environment: its own small aggregate
// (stream `adc-<distributorId>` in the environment's store). The url arrives already vetted by the service
// (the SSRF guard resolves hosts, which the domain cannot); the timeout and the fallback are checked here.
// The signing secret is sealed by the service and kept over url or timeout changes; switching decisioning
// off and on again makes a new one.
// ---------------------------------------------------------------------------------------------------

export const DECISIONING_STREAM_PREFIX = 'adc';
export const decisioningStreamOf = (distributorId: string) => `${DECISIONING_STREAM_PREFIX}-${distributorId}`;

export interface ConfigureDecisioning {
  type: 'ConfigureDecisioning';
  data: {
    distributorId: string;
    url: string;
    timeoutMs: number;
    onTimeout: DecisioningOnTimeout;
    /** The secret to use when this creates the configuration (an existing one keeps its own). */
    newSealedSecret: string;
    now: string;
  };
}

export interface DisableDecisioning {
  type: 'DisableDecisioning';
  data: { now: string };
}

export type DecisioningCommand = ConfigureDecisioning | DisableDecisioning;

type Settings = { url: string; timeoutMs: number; onTimeout: DecisioningOnTimeout };

export type DecisioningConfigured = DomainEvent<
  'DecisioningConfigured',
  Settings & {
    distributorId: string;
    /** The signing secret (`whsec_...`) sealed with the context's secrets key; never stored in clear. */
    sealedSecret: string;
    /** True when this event switched decisioning on (the secret is new). */
    created: boolean;
    at: string;
  }
>;

export type DecisioningDisabled = DomainEvent<'DecisioningDisabled', { distributorId: string; at: string }>;

export type DecisioningEvent = DecisioningConfigured | DecisioningDisabled;

export type DecisioningState =
  | { status: 'off' }
  | (Settings & {
      status: 'on';
      distributorId: string;
      sealedSecret: string;
      createdAt: string;
      updatedAt: string;
    });

export const decisioningEvents = domainEventReader<DecisioningEvent>();

const invalid = (field: string, message: string) =>
  new DomainError('validation_error', `${field} ${message}`, [{ field, message }]);

/** Refuses a timeout outside the network's budget and an unknown fallback (validation errors naming the field). */
export function checkDecisioningSettings(settings: { timeoutMs: unknown; onTimeout: unknown }): void {
  const { min, max } = DECISIONING_TIMEOUT_MS;
  const { timeoutMs, onTimeout } = settings;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < min || timeoutMs > max) {
    throw invalid('timeoutMs', `must be an integer from ${min} to ${max}`);
  }
  if (!DECISIONING_ON_TIMEOUT.includes(onTimeout as DecisioningOnTimeout)) {
    throw invalid('onTimeout', `must be one of ${DECISIONING_ON_TIMEOUT.join(', ')}`);
  }
}

function decide(command: DecisioningCommand, state: DecisioningState): DecisioningEvent[] {
  switch (command.type) {
    case 'ConfigureDecisioning': {
      const { distributorId, url, timeoutMs, onTimeout, newSealedSecret, now } = command.data;
      checkDecisioningSettings({ timeoutMs, onTimeout });
      if (
        state.status === 'on' &&
        state.url === url &&
        state.timeoutMs === timeoutMs &&
        state.onTimeout === onTimeout
      ) {
        return [];
      }
      const created = state.status === 'off';
      return [
        {
          type: 'DecisioningConfigured',
          data: {
            distributorId,
            url,
            timeoutMs,
            onTimeout,
            sealedSecret: created ? newSealedSecret : state.sealedSecret,
            created,
            at: now,
          },
        },
      ];
    }
    case 'DisableDecisioning': {
      if (state.status === 'off') {
        throw new DomainError('not_found', 'No authorization decisioning is configured');
      }
      return [
        { type: 'DecisioningDisabled', data: { distributorId: state.distributorId, at: command.data.now } },
      ];
    }
    default: {
      const unknown: never = command;
      throw new Error(`Unknown decisioning command ${(unknown as { type: string }).type}`);
    }
  }
}

function evolve(state: DecisioningState, event: DecisioningEvent): DecisioningState {
  switch (event.type) {
    case 'DecisioningConfigured': {
      const { distributorId, url, timeoutMs, onTimeout, sealedSecret, at } = event.data;
      return {
        status: 'on',
        distributorId,
        url,
        timeoutMs,
        onTimeout,
        sealedSecret,
        createdAt: state.status === 'on' ? state.createdAt : at,
        updatedAt: at,
      };
    }
    case 'DecisioningDisabled':
      return { status: 'off' };
    default: {
      const unknown: never = event;
      throw new Error(`Unknown decisioning event ${(unknown as { type: string }).type}`);
    }
  }
}

export const decisioningDecider: Decider<DecisioningCommand, DecisioningEvent, DecisioningState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'off' }),
  events: decisioningEvents,
};
