import type { Logger, WebhookHttpClient, WebhookResponse } from '@cip/shared/runtime';
import CircuitBreaker from 'opossum';

/** A non-2xx answer: a failure for the circuit breaker, carrying the response for the delivery log. */
export class UnsuccessfulResponse extends Error {
  constructor(readonly response: WebhookResponse) {
    super(`HTTP ${response.statusCode}`);
  }
}

/** One subscription's endpoint: its breaker, and the queues waiting for the breaker to let them go. */
export interface Endpoint {
  /** Fired with the event id, the url, the body, the headers and the lane (its own connections). */
  breaker: CircuitBreaker<[string, URL, string, Record<string, string>, string], WebhookResponse>;
  url: string;
  inFlight: number;
  /** Queues that found the breaker open; they go again when it half-opens or closes. */
  parked: Set<string>;
}

export interface BreakerOptions {
  resetTimeoutMs: number;
  volumeThreshold: number;
  errorThresholdPercentage: number;
}

/**
 * One circuit breaker per subscription endpoint: while an endpoint keeps failing, nothing is sent to it
 * until the breaker lets a probe through, and the queues parked on it are released when it does.
 */
export class EndpointBreakers {
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(
    private readonly http: WebhookHttpClient,
    private readonly options: BreakerOptions,
    private readonly logger: Logger,
    /** Called with the parked queue keys when a breaker half-opens or closes. */
    private readonly release: (parked: string[]) => void,
  ) {}

  /** The endpoint of a subscription at `url` (a new one when the url changed and nothing is in flight). */
  endpointOf(subscriptionId: string, url: string): Endpoint {
    let endpoint = this.endpoints.get(subscriptionId);
    if (endpoint && endpoint.url !== url && endpoint.inFlight === 0) {
      endpoint.breaker.shutdown();
      endpoint = undefined;
    }
    if (!endpoint) {
      endpoint = this.open(subscriptionId, url);
      this.endpoints.set(subscriptionId, endpoint);
    }
    return endpoint;
  }

  /** Forgets a subscription's endpoint when nothing is in flight on it. */
  retire(subscriptionId: string): void {
    const endpoint = this.endpoints.get(subscriptionId);
    if (endpoint && endpoint.inFlight === 0) {
      endpoint.breaker.shutdown();
      this.endpoints.delete(subscriptionId);
    }
  }

  shutdown(): void {
    for (const endpoint of this.endpoints.values()) endpoint.breaker.shutdown();
    this.endpoints.clear();
  }

  private open(subscriptionId: string, url: string): Endpoint {
    const breaker = new CircuitBreaker(
      async (id: string, target: URL, body: string, headers: Record<string, string>, lane: string) => {
        // Each lane has its own connections: an express delivery never waits for a socket behind the
        // standard lane's backlog to the same receiver.
        const response = await this.http.post(target, body, { ...headers, 'webhook-id': id }, lane);
        if (response.statusCode < 200 || response.statusCode >= 300) throw new UnsuccessfulResponse(response);
        return response;
      },
      {
        timeout: false,
        resetTimeout: this.options.resetTimeoutMs,
        volumeThreshold: this.options.volumeThreshold,
        errorThresholdPercentage: this.options.errorThresholdPercentage,
        name: subscriptionId,
      },
    );
    const endpoint: Endpoint = { breaker, url, inFlight: 0, parked: new Set() };
    const release = () => {
      const parked = [...endpoint.parked];
      endpoint.parked.clear();
      this.release(parked);
    };
    breaker.on('halfOpen', release);
    breaker.on('close', release);
    breaker.on('open', () => this.logger.warn({ subscriptionId }, 'webhook endpoint circuit opened'));
    return endpoint;
  }
}
