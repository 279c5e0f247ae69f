import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { type?: string; challenge?: string; eventId?: string; eventName?: string; [field: string]: unknown };
  /** The status this receiver answered. */
  status: number;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> };

/**
 * A distributor's webhook listener on 127.0.0.1: answers the verification handshake by echoing the
 * challenge (unless told not to) and Events with `answer` (200 by default); keeps every request. `answer`
 * may return a promise: a slow receiver holds its response until the test settles it.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  echoChallenge = true;
  answer: (request: Omit<ReceivedRequest, 'status'>) => Answer | Promise<Answer> = () => ({ status: 200 });
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const body = rawBody ? JSON.parse(rawBody) : {};
        const incoming = { headers: req.headers, rawBody, body };
        const answer: Answer =
          body.type === 'webhookSubscription.verification'
            ? this.echoChallenge
              ? { status: 200, body: JSON.stringify({ challenge: body.challenge }) }
              : { status: 200, body: '{"ok":true}' }
            : await this.answer(incoming);
        this.requests.push({ ...incoming, status: answer.status });
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  /** Event deliveries (not handshakes) received. */
  get deliveries(): ReceivedRequest[] {
    return this.requests.filter((r) => r.body.type !== 'webhookSubscription.verification');
  }

  acknowledged(eventName?: string): ReceivedRequest[] {
    return this.deliveries.filter(
      (r) => r.status >= 200 && r.status < 300 && (!eventName || r.body.eventName === eventName),
    );
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
