import {
  DECISIONING_TIMEOUT_MS,
  type AuthorizationDecisioningApi,
  type AuthorizationDecisioningView,
  type ConfigureDecisioningInput,
  type ConfiguredDecisioning,
} from '@cip/authorizations/contract';
import {
  decisioningDecider,
  decisioningStreamOf,
  type DecisioningCommand,
  type DecisioningState,
} from '@cip/authorizations/domain';
import { Caller, DomainError, type Environment } from '@cip/shared/contracts';
import { callerContext, handleCommand, loadState, type EventStore } from '@cip/shared/eventing';
import {
  newStandardWebhookSecret,
  parseWebhookUrl,
  resolveDeliveryAddress,
  type AddressPolicy,
  type Clock,
  type SecretBox,
} from '@cip/shared/runtime';

export interface DecisioningConfigsPorts {
  eventStore(environment: Environment): EventStore;
  /** Seals the signing secrets at rest (their stream id is the sealing context). */
  secrets: SecretBox;
  /** WEBHOOK_ALLOW_PRIVATE_URLS and DNS: applied in the sandbox; production always needs a public address. */
  addressPolicy: AddressPolicy;
  clock: Clock;
}

/** An active configuration, as the authorization path uses it. */
export interface ActiveDecisioning {
  url: URL;
  timeoutMs: number;
  onTimeout: 'approve' | 'decline';
  secret: string;
}

const refuseUrl = (message: string) =>
  new DomainError('validation_error', message, [{ field: 'url', message }]);

/**
 * `PUT|GET|DELETE /v1/authorization-decisioning`: one configuration per distributor and environment, its
 * changes events on its own stream (`adc-<distributorId>`). The authorization path reads the active one
 * through `active`, from memory once read: every change goes through this object, and the authorizations
 * context runs in one process (the embedded runtime), so the cache cannot go stale.
 */
export class DecisioningConfigs implements AuthorizationDecisioningApi {
  private readonly cache = new Map<string, Promise<ActiveDecisioning | null>>();

  constructor(private readonly ports: DecisioningConfigsPorts) {}

  async configureDecisioning(
    caller: Caller,
    input: ConfigureDecisioningInput,
  ): Promise<ConfiguredDecisioning> {
    const url = await this.vetUrl(caller.environment, input?.url);
    const streamId = decisioningStreamOf(caller.distributorId);
    const secret = newStandardWebhookSecret();
    const now = this.ports.clock.now();
    const { state, events } = await this.command(caller, {
      type: 'ConfigureDecisioning',
      data: {
        distributorId: caller.distributorId,
        url: url.toString(),
        timeoutMs: input?.timeoutMs ?? DECISIONING_TIMEOUT_MS.default,
        onTimeout: input?.onTimeout ?? 'decline',
        newSealedSecret: this.ports.secrets.seal(secret, streamId),
        now: now.toISOString(),
      },
    });
    const created = events.some((event) => event.type === 'DecisioningConfigured' && event.data.created);
    return { decisioning: viewOf(state), ...(created ? { secret } : {}) };
  }

  async getDecisioning(caller: Caller): Promise<AuthorizationDecisioningView> {
    return viewOf(await this.state(caller.environment, caller.distributorId));
  }

  async disableDecisioning(caller: Caller): Promise<void> {
    await this.command(caller, {
      type: 'DisableDecisioning',
      data: { now: this.ports.clock.now().toISOString() },
    });
  }

  /** The distributor's active configuration, or null when decisioning is off. */
  active(environment: Environment, distributorId: string): Promise<ActiveDecisioning | null> {
    const key = `${environment}:${distributorId}`;
    let active = this.cache.get(key);
    if (!active) {
      active = this.state(environment, distributorId).then((state) => this.activeOf(distributorId, state));
      // A failed read is not remembered: the next authorization reads again.
      active.catch(() => this.cache.delete(key));
      this.cache.set(key, active);
    }
    return active;
  }

  private async command(caller: Caller, command: DecisioningCommand) {
    const streamId = decisioningStreamOf(caller.distributorId);
    const key = `${caller.environment}:${caller.distributorId}`;
    try {
      const result = await handleCommand(
        this.ports.eventStore(caller.environment),
        decisioningDecider,
        streamId,
        command,
        callerContext(this.ports.clock.now(), caller),
      );
      this.cache.set(key, Promise.resolve(this.activeOf(caller.distributorId, result.state)));
      return result;
    } catch (error) {
      this.cache.delete(key);
      throw error;
    }
  }

  private async state(environment: Environment, distributorId: string): Promise<DecisioningState> {
    const { state } = await loadState(
      this.ports.eventStore(environment),
      decisioningDecider,
      decisioningStreamOf(distributorId),
    );
    return state;
  }

  private activeOf(distributorId: string, state: DecisioningState): ActiveDecisioning | null {
    if (state.status !== 'on') return null;
    return {
      url: new URL(state.url),
      timeoutMs: state.timeoutMs,
      onTimeout: state.onTimeout,
      secret: this.ports.secrets.open(state.sealedSecret, decisioningStreamOf(distributorId)),
    };
  }

  /**
   * The url, refused (`validation_error` naming `url`) unless https in production, and resolving to public
   * addresses only (the shared SSRF guard; in the sandbox, private ones only with WEBHOOK_ALLOW_PRIVATE_URLS).
   * Every connection is vetted again by the guarded HTTP client (DNS rebinding).
   */
  private async vetUrl(environment: Environment, raw: unknown): Promise<URL> {
    const url = parseWebhookUrl(raw as string);
    if (environment === 'production' && url.protocol !== 'https:')
      throw refuseUrl('url must use https in production');
    const policy =
      environment === 'production'
        ? { ...this.ports.addressPolicy, allowPrivate: false }
        : this.ports.addressPolicy;
    await resolveDeliveryAddress(url.hostname, policy);
    return url;
  }
}

function viewOf(state: DecisioningState): AuthorizationDecisioningView {
  if (state.status !== 'on') throw new DomainError('not_found', 'No authorization decisioning is configured');
  return {
    url: state.url,
    timeoutMs: state.timeoutMs,
    onTimeout: state.onTimeout,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}
