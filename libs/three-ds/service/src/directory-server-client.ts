import type { Environment } from '@cip/shared/contracts';
import { systemResolver, WebhookHttpClient, WebhookTransportError } from '@cip/shared/runtime';
import type { RReq } from '@cip/three-ds/contract';

/** How long the ACS waits for the directory server's RRes before trying again later. */
const RESULT_TIMEOUT_MS = 10_000;
/** An RRes is a few hundred bytes: a larger answer is not one. */
const MAX_ANSWER_BYTES = 16 * 1024;

/** The DS's URL can never be reached (a private address in production, not a URL): no retry helps. */
export class DirectoryServerRefused extends Error {}

/**
 * Posts RReqs to the directory server's URL (the AReq's `dsURL`) as EMV 3DS messages travel: JSON over
 * HTTP(S). The URL comes in a message, so it goes through the platform's outbound guard (the webhooks'
 * client: every address vetted at connection time, no redirects, a capped answer, one deadline).
 * Production reaches public addresses only; the sandbox any (its DS is the simulator, on loopback).
 */
export class DirectoryServerClient {
  private readonly clients = new Map<Environment, WebhookHttpClient>();

  /** The parsed answer (the caller validates it as an RRes); throws on no answer, a non-2xx or non-JSON. */
  async sendResult(environment: Environment, dsURL: string, rreq: RReq): Promise<unknown> {
    let url: URL;
    try {
      url = new URL(dsURL);
    } catch {
      throw new DirectoryServerRefused('dsURL is not a URL');
    }
    const response = await this.client(environment)
      .post(url, JSON.stringify(rreq), { accept: 'application/json' })
      .catch((error: unknown) => {
        if (error instanceof WebhookTransportError && error.message.startsWith('refused:')) {
          throw new DirectoryServerRefused(error.message);
        }
        throw error;
      });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new Error(`The directory server answered the RReq with HTTP ${response.statusCode}`);
    }
    return JSON.parse(response.body) as unknown;
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private client(environment: Environment): WebhookHttpClient {
    let client = this.clients.get(environment);
    if (!client) {
      client = new WebhookHttpClient({
        allowPrivate: environment === 'sandbox',
        resolver: systemResolver,
        timeoutMs: RESULT_TIMEOUT_MS,
        maxResponseBytes: MAX_ANSWER_BYTES,
        maxSocketsPerOrigin: 16,
        userAgent: 'card-issuing-platform-acs/1',
      });
      this.clients.set(environment, client);
    }
    return client;
  }
}
