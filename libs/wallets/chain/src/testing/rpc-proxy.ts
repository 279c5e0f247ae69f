import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  readonly url: string;
  /** While false, every request is answered 503, as by a node behind a failing gateway. */
  up: boolean;
  /** JSON-RPC methods forwarded so far, in order: a signal that a client has polled, without sleeping. */
  readonly methods: string[];
  /**
   * Requests whose method this answers true for are held: never forwarded nor answered (a node that took
   * the request and went silent), so a test can kill its client at that exact step. Null: none held.
   */
  hold: ((method: string) => boolean) | null;
  /** The methods of the requests held so far, in order. */
  readonly held: string[];
  close(): Promise<void>;
}

/** A JSON-RPC pass-through to `targetUrl` that tests can take down and watch. */
export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!proxy.up) return void res.writeHead(503).end();
    const body = Buffer.concat(chunks);
    const calls = [JSON.parse(body.toString('utf8')) as { method: string } | { method: string }[]].flat();
    const hold = proxy.hold;
    if (hold && calls.some((call) => hold(call.method))) {
      proxy.held.push(...calls.map((call) => call.method));
      return;
    }
    try {
      const answer = await fetch(targetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await answer.text();
      proxy.methods.push(...calls.map((call) => call.method));
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const proxy: RpcProxy = {
    up: true,
    methods: [],
    hold: null,
    held: [],
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        // Clients keep connections alive; without this, close waits for them to time out.
        server.closeAllConnections();
      }),
  };
  return proxy;
}
