import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookHttpClient, WebhookTransportError } from './webhook-http-client';
import type { Resolver } from './url-guard';

describe('webhook HTTP client', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url!);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/target' });
        return res.end();
      }
      if (req.url === '/large') {
        res.writeHead(200);
        return res.end('x'.repeat(1_000_000));
      }
      if (req.url === '/silent') return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    hits.length = 0;
  });

  /** DNS that answers what the test says, and counts the questions. */
  const dns = (answers: string[]) => {
    const asked: string[] = [];
    const resolver: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: answers[Math.min(asked.length - 1, answers.length - 1)], family: 4 }];
    };
    return { resolver, asked };
  };

  const client = (allowPrivate: boolean, resolver: Resolver, timeoutMs = 10_000) =>
    new WebhookHttpClient({
      allowPrivate,
      resolver,
      timeoutMs,
      maxResponseBytes: 1024,
      maxSocketsPerOrigin: 4,
    });

  it("gives each pool its own connections: one pool's request never waits behind another's", async () => {
    const http = new WebhookHttpClient({
      allowPrivate: true,
      resolver: dns(['127.0.0.1']).resolver,
      timeoutMs: 10_000,
      maxResponseBytes: 1024,
      maxSocketsPerOrigin: 1,
    });
    try {
      // The standard pool's only connection is held by a receiver that never answers...
      const held = http.post(new URL(`http://127.0.0.1:${port}/silent`), '{}', {}, 'standard');
      held.catch(() => undefined);
      // ...and the express pool's request to the same origin is answered all the same.
      await expect(
        http.post(new URL(`http://127.0.0.1:${port}/express`), '{}', {}, 'express'),
      ).resolves.toMatchObject({
        statusCode: 200,
      });
      expect(hits).toContain('/silent');
    } finally {
      http.close();
    }
  });

  it('refuses at connection time a host that now resolves to a private address (DNS rebinding)', async () => {
    const { resolver, asked } = dns(['127.0.0.1']);
    const http = client(false, resolver);
    await expect(http.post(new URL(`http://hooks.rebound.test:${port}/in`), '{}', {})).rejects.toThrow(
      /private or reserved/,
    );
    expect(asked).toEqual(['hooks.rebound.test']);
    expect(hits).toHaveLength(0);
    http.close();
  });

  it('refuses a private address written in the url without asking DNS', async () => {
    const { resolver, asked } = dns(['93.184.216.34']);
    const http = client(false, resolver);
    await expect(http.post(new URL(`http://127.0.0.1:${port}/in`), '{}', {})).rejects.toBeInstanceOf(
      WebhookTransportError,
    );
    expect(asked).toHaveLength(0);
    expect(hits).toHaveLength(0);
    http.close();
  });

  it('connects to the address it vetted, whatever the host name', async () => {
    const { resolver } = dns(['127.0.0.1']);
    const http = client(true, resolver);
    const response = await http.post(new URL(`http://receiver.example:${port}/in`), '{}', {
      'webhook-id': 'x',
    });
    expect(response).toMatchObject({ statusCode: 200, body: '{"ok":true}' });
    expect(hits).toEqual(['/in']);
    http.close();
  });

  it('never follows a redirect, and reads at most the capped size of an answer', async () => {
    const { resolver } = dns(['127.0.0.1']);
    const http = client(true, resolver);
    expect((await http.post(new URL(`http://r.example:${port}/redirect`), '{}', {})).statusCode).toBe(302);
    expect(hits).toEqual(['/redirect']);
    const large = await http.post(new URL(`http://r.example:${port}/large`), '{}', {});
    expect(large.statusCode).toBe(200);
    expect(large.body.length).toBe(1024);
    http.close();
  });

  it('gives up on an endpoint that does not answer within the deadline', async () => {
    const { resolver } = dns(['127.0.0.1']);
    const http = client(true, resolver, 200);
    await expect(http.post(new URL(`http://r.example:${port}/silent`), '{}', {})).rejects.toThrow(
      /no answer within 0.2 s/,
    );
    http.close();
  });
});
