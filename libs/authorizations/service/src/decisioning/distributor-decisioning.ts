import type { DecisioningRequestBody } from '@cip/authorizations/contract';
import {
  CARD_CURRENCY,
  decideAuthorization,
  readDistributorReply,
  usdUnits,
  type AuthorizationFacts,
  type AuthorizationOutcome,
  type DistributorReply,
  type DistributorVerdict,
} from '@cip/authorizations/domain';
import type { Environment } from '@cip/shared/contracts';
import {
  signStandardWebhook,
  type Clock,
  WebhookHttpClient,
  type Logger,
  type WebhookHttpOptions,
  type WebhookResponse,
} from '@cip/shared/runtime';
import CircuitBreaker from 'opossum';
import type { ActiveDecisioning, DecisioningConfigs } from './decisioning-configs';
import type { DecisioningCallOutcome, DecisioningMetrics } from './decisioning-metrics';

/** Who the payment belongs to, as the distributor sees it. */
export interface DecisioningParties {
  authorizationId: string;
  distributorId: string;
  cardId: string;
  userId: string;
  walletId: string;
}

export interface DistributorDecisioningOptions {
  /** How long an open circuit stays open before one call is let through again. */
  breakerResetTimeoutMs: number;
}

/** A non-2xx answer: a failure for the endpoint's breaker, carrying the status for the verdict. */
class UnsuccessfulAnswer extends Error {
  constructor(readonly response: WebhookResponse) {
    super(`HTTP ${response.statusCode}`);
  }
}

interface Call {
  url: URL;
  body: string;
  headers: Record<string, string>;
  /** Set once the decision went ahead without this call's answer. */
  abandoned: boolean;
  authorizationId: string;
}

interface Endpoint {
  url: string;
  timeoutMs: number;
  breaker: CircuitBreaker<[Call], WebhookResponse>;
}

/**
 * The distributor's part of a payment decision (real-time decisioning, issue 12): once the platform's own
 * checks confirm a payment, and before any hold is placed, the distributor's endpoint gets the
 * authorization (signed with the Standard Webhooks headers and the configuration's secret) and has
 * `timeoutMs` to answer. Its verdict joins the facts and the decision policy decides again, so what is
 * recorded is reproducible from the command alone. Advices (the network already decided) and refunds never
 * get here.
 *
 * One opossum breaker per distributor endpoint (environment, distributor, url and timeout): its timeout is
 * the decision deadline, and a failing or silent endpoint opens it, so authorizations stop waiting the full
 * timeout on a dead endpoint and take `onTimeout` at once until a probe succeeds. A call abandoned at the
 * deadline keeps running on the guarded HTTP client (its own 10 s cap): an answer arriving after the
 * deadline is logged and counted (`late_ignored`), never applied.
 */
export class DistributorDecisioning {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly clients = new Map<Environment, WebhookHttpClient>();

  constructor(
    private readonly configs: Pick<DecisioningConfigs, 'active'>,
    /** The options of each environment's guarded HTTP client (SSRF checks on every connection). */
    private readonly httpOptions: (environment: Environment) => WebhookHttpOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: DecisioningMetrics,
    private readonly options: DistributorDecisioningOptions,
  ) {}

  /**
   * The outcome of a payment request: the platform's own decision, then, when that confirms it and the
   * distributor has decisioning on, the decision with the distributor's verdict (set on `facts.distributor`,
   * so the recorded command carries it).
   */
  async decide(
    environment: Environment,
    parties: DecisioningParties,
    facts: AuthorizationFacts,
  ): Promise<AuthorizationOutcome> {
    const outcome = decideAuthorization(facts);
    if (outcome.decision !== 'confirmed' || facts.request.advice) return outcome;
    const config = await this.configs.active(environment, parties.distributorId);
    if (!config) return outcome;
    facts.distributor = await this.ask(environment, config, parties, facts, outcome);
    return decideAuthorization(facts);
  }

  shutdown(): void {
    for (const endpoint of this.endpoints.values()) endpoint.breaker.shutdown();
    this.endpoints.clear();
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private http(environment: Environment): WebhookHttpClient {
    let client = this.clients.get(environment);
    if (!client) {
      client = new WebhookHttpClient(this.httpOptions(environment));
      this.clients.set(environment, client);
    }
    return client;
  }

  private async ask(
    environment: Environment,
    config: ActiveDecisioning,
    parties: DecisioningParties,
    facts: AuthorizationFacts,
    outcome: AuthorizationOutcome,
  ): Promise<DistributorVerdict> {
    const body: DecisioningRequestBody = {
      type: 'authorization.request',
      authorization: {
        id: parties.authorizationId,
        cardId: parties.cardId,
        userId: parties.userId,
        walletId: parties.walletId,
        type: 'payment',
        merchant: facts.request.merchant,
        amount: usdUnits(outcome.amount),
        amountMinorUnits: outcome.amount,
        currency: CARD_CURRENCY,
        merchantAmount: outcome.merchantAmount,
        merchantCurrency: outcome.merchantCurrency,
        fee: outcome.fee,
        requestedAt: facts.request.at,
      },
    };
    const text = JSON.stringify(body);
    const call: Call = {
      url: config.url,
      body: text,
      // The authorization id is the message id: a retried request (the network's retry after a crash) is
      // recognisably the same message to the distributor.
      headers: {
        ...signStandardWebhook({
          id: parties.authorizationId,
          timestamp: this.clock.now(),
          body: text,
          secret: config.secret,
        }),
      },
      abandoned: false,
      authorizationId: parties.authorizationId,
    };
    const started = process.hrtime.bigint();
    const reply = await this.call(environment, parties.distributorId, config, call);
    const verdict = readDistributorReply(reply, outcome.amount, config.onTimeout);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const label = labelOf(reply, verdict);
    this.metrics.outcomes.inc({ outcome: label });
    this.metrics.duration.observe({ outcome: label }, seconds);
    if (verdict.decidedBy === 'distributorTimeout') {
      this.logger.warn(
        { authorizationId: parties.authorizationId, distributorId: parties.distributorId, outcome: label },
        `authorization decisioning fell back to onTimeout (${config.onTimeout}): ${verdict.detail}`,
      );
    }
    return verdict;
  }

  private async call(
    environment: Environment,
    distributorId: string,
    config: ActiveDecisioning,
    call: Call,
  ): Promise<DistributorReply> {
    const breaker = this.endpointOf(environment, distributorId, config).breaker;
    try {
      const response = await breaker.fire(call);
      return { kind: 'answered', statusCode: response.statusCode, body: response.body };
    } catch (error) {
      call.abandoned = true;
      if (error instanceof UnsuccessfulAnswer) {
        return { kind: 'answered', statusCode: error.response.statusCode, body: error.response.body };
      }
      const code = (error as { code?: string }).code;
      if (code === 'ETIMEDOUT') return { kind: 'timeout' };
      if (code === 'EOPENBREAKER') return { kind: 'circuitOpen' };
      return { kind: 'unreachable', reason: (error as Error).message };
    }
  }

  private endpointOf(environment: Environment, distributorId: string, config: ActiveDecisioning): Endpoint {
    const key = `${environment}:${distributorId}`;
    const url = config.url.toString();
    let endpoint = this.endpoints.get(key);
    if (endpoint && (endpoint.url !== url || endpoint.timeoutMs !== config.timeoutMs)) {
      endpoint.breaker.shutdown();
      endpoint = undefined;
    }
    if (!endpoint) {
      const breaker = new CircuitBreaker(
        async (call: Call) => {
          const pending = this.http(environment).post(call.url, call.body, call.headers);
          pending.then(
            (response) => call.abandoned && this.late(call, response),
            () => undefined,
          );
          const response = await pending;
          if (response.statusCode < 200 || response.statusCode >= 300) throw new UnsuccessfulAnswer(response);
          return response;
        },
        {
          timeout: config.timeoutMs,
          resetTimeout: this.options.breakerResetTimeoutMs,
          volumeThreshold: 5,
          errorThresholdPercentage: 50,
          name: key,
        },
      );
      breaker.on('open', () =>
        this.logger.warn({ environment, distributorId }, 'authorization decisioning endpoint circuit opened'),
      );
      endpoint = { url, timeoutMs: config.timeoutMs, breaker };
      this.endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  /** An answer that came after the decision: never applied, logged and counted. */
  private late(call: Call, response: WebhookResponse): void {
    this.metrics.outcomes.inc({ outcome: 'late_ignored' });
    this.logger.warn(
      { authorizationId: call.authorizationId, statusCode: response.statusCode },
      'late authorization decisioning answer ignored',
    );
  }
}

function labelOf(reply: DistributorReply, verdict: DistributorVerdict): DecisioningCallOutcome {
  if (reply.kind === 'timeout') return 'timeout';
  if (reply.kind === 'circuitOpen') return 'circuit_open';
  if (verdict.decidedBy === 'distributorTimeout') return 'error';
  if (verdict.amount !== undefined) return 'partial';
  return verdict.decision === 'approve' ? 'approved' : 'declined';
}
