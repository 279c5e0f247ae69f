import { DomainError } from '@cip/shared/contracts';
import { Agent as HttpAgent, request as httpRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { AddressPolicy, resolveDeliveryAddress } from './url-guard';

export interface WebhookHttpOptions extends AddressPolicy {
  /** Whole-request deadline (API-DECISIONS.md: 10 s). */
  timeoutMs: number;
  /** A receiver's answer is read up to this size; the rest is never downloaded. */
  maxResponseBytes: number;
  /** Concurrent connections per endpoint origin. */
  maxSocketsPerOrigin: number;
  /** The User-Agent sent (webhook deliveries' by default). */
  userAgent?: string;
}

export interface WebhookResponse {
  statusCode: number;
  /** The first `maxResponseBytes` of the body. */
  body: string;
  /** The Retry-After header as sent, if any. */
  retryAfter: string | null;
}

/** No answer at all: refused address, connection error, time-out. */
export class WebhookTransportError extends Error {
  constructor(
    message: string,
    /** `timeout`: connected, but no answer in time; `connection`: no connection could be made. */
    readonly kind: 'timeout' | 'connection' = 'connection',
  ) {
    super(message);
    this.name = 'WebhookTransportError';
  }
}

/**
 * POSTs to webhook endpoints. Every new connection resolves the host and vets each address (the custom
 * `lookup`), then connects to exactly the vetted address, so DNS cannot be switched to an internal
 * address between the check and the connection. Redirects are never followed, the body read is capped
 * and the whole exchange has one deadline. Connections are kept alive per origin.
 */
export class WebhookHttpClient {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly lookup: LookupFunction;

  constructor(private readonly options: WebhookHttpOptions) {
    this.lookup = (hostname, lookupOptions, callback) => {
      resolveDeliveryAddress(hostname, options).then(
        ({ address, family }) => {
          if ((lookupOptions as { all?: boolean }).all) {
            (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
              { address, family },
            ]);
          } else {
            callback(null, address, family);
          }
        },
        (error: Error) => callback(Object.assign(error, { code: 'EWEBHOOKREFUSED' }), '', 0),
      );
    };
  }

  private agentFor(url: URL, pool: string): HttpAgent {
    const key = `${pool}|${url.origin}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const settings = {
        keepAlive: true,
        maxSockets: this.options.maxSocketsPerOrigin,
        scheduling: 'lifo' as const,
        lookup: this.lookup,
      };
      agent = url.protocol === 'https:' ? new HttpsAgent(settings) : new HttpAgent(settings);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /**
   * `pool`: connections are kept per pool and origin, each pool with its own `maxSocketsPerOrigin`, so
   * requests of one pool never queue behind another's (the express lane's 3-D Secure Events behind a
   * backlog of ordinary ones to the same receiver).
   */
  async post(
    url: URL,
    body: string,
    headers: Record<string, string>,
    pool = 'default',
  ): Promise<WebhookResponse> {
    const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // Addresses written in the url never go through `lookup`: vet them here.
    if (isIP(literal)) await this.vet(literal);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookResponse>((resolve, reject) => {
      const request = send(url, {
        method: 'POST',
        agent: this.agentFor(url, pool),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': this.options.userAgent ?? 'card-issuing-platform-webhooks/1',
        },
      });
      const deadline = setTimeout(
        () =>
          request.destroy(
            new WebhookTransportError(`no answer within ${this.options.timeoutMs / 1000} s`, 'timeout'),
          ),
        this.options.timeoutMs,
      );
      const fail = (error: Error) => {
        clearTimeout(deadline);
        reject(error instanceof WebhookTransportError ? error : new WebhookTransportError(describe(error)));
      };
      request.on('error', fail);
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size >= this.options.maxResponseBytes) return;
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: stop downloading, and do not reuse a connection left mid-body.
          if (size >= this.options.maxResponseBytes) response.destroy();
        });
        const done = () => {
          clearTimeout(deadline);
          const retryAfter = response.headers['retry-after'];
          resolve({
            statusCode: response.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, this.options.maxResponseBytes).toString('utf8'),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          });
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', () => done());
      });
      request.end(body);
    });
  }

  private async vet(address: string): Promise<void> {
    try {
      await resolveDeliveryAddress(address, this.options);
    } catch (error) {
      throw new WebhookTransportError(describe(error as Error));
    }
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

function describe(error: Error): string {
  if (error instanceof DomainError) return `refused: ${error.message}`;
  const code = (error as NodeJS.ErrnoException).code;
  return code && code !== 'EWEBHOOKREFUSED' ? `${code}: ${error.message}` : error.message;
}

/** Milliseconds asked for by a Retry-After header (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
