import { createServer, type Server, type Socket } from 'node:net';
import { IsoCodec } from './codec';
import { IsoLinkError } from './errors';
import { F } from './field-spec';
import { resolveFraming, writeFrameHeader } from './framing';
import { backoffDelay, IsoClient, type IsoClientOptions } from './iso-client';
import type { IsoLinkEvent, IsoLinkOptions } from './link-options';
import { IsoMessage, responseMtiOf } from './iso-message';
import { IsoServer } from './iso-server';

type EventType = IsoLinkEvent['type'];

/** Records link events; `next(type)` resolves on the first not-yet-consumed event of that type. */
class Events {
  private readonly seen: IsoLinkEvent[] = [];
  private readonly waiting: { type: EventType; resolve: (event: IsoLinkEvent) => void }[] = [];
  readonly listener = (event: IsoLinkEvent) => {
    const index = this.waiting.findIndex((w) => w.type === event.type);
    if (index >= 0) this.waiting.splice(index, 1)[0].resolve(event);
    else this.seen.push(event);
  };

  next<T extends EventType>(type: T): Promise<Extract<IsoLinkEvent, { type: T }>> {
    const index = this.seen.findIndex((e) => e.type === type);
    if (index >= 0)
      return Promise.resolve(this.seen.splice(index, 1)[0] as Extract<IsoLinkEvent, { type: T }>);
    return new Promise((resolve) =>
      this.waiting.push({ type, resolve: resolve as (e: IsoLinkEvent) => void }),
    );
  }
}

function authorization(stan: string): IsoMessage {
  return new IsoMessage('0100', {
    [F.PAN]: '4111111111111111',
    [F.AMOUNT_TRANSACTION]: '000000001000',
    [F.STAN]: stan,
    [F.RRN]: `RRN${stan}`.padEnd(12, '0'),
  });
}

/** What an issuer answers: the request's STAN and RRN echoed, an approval code made from the STAN. */
function approve(request: IsoMessage): IsoMessage {
  return new IsoMessage(responseMtiOf(request.mti), {
    [F.STAN]: request.get(F.STAN),
    [F.RRN]: request.get(F.RRN),
    [F.APPROVAL_CODE]: `A${request.get(F.STAN)?.slice(1)}`,
    [F.RESPONSE_CODE]: '00',
  });
}

/** A promise with its resolver, for handlers the test releases explicitly. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  jest.useRealTimers();
  while (closers.length) await closers.pop()?.();
});

async function startServer(options: IsoLinkOptions = {}, port = 0) {
  const events = new Events();
  const server = new IsoServer({ echoIdleMs: 0, ...options, onEvent: events.listener });
  const bound = await server.listen(port);
  closers.push(() => server.close());
  return { server, port: bound, events };
}

async function startClient(port: number, options: Partial<IsoClientOptions> = {}) {
  const events = new Events();
  const client = new IsoClient({
    host: '127.0.0.1',
    port,
    echoIdleMs: 0,
    ...options,
    onEvent: events.listener,
  });
  closers.push(() => client.close());
  client.start();
  await events.next('connected');
  return { client, events };
}

/** Fake timers for the link's own timers; sockets keep running on the real event loop. */
function fakeTimers() {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance'] });
}

describe('request/response over the link', () => {
  it('matches each response to its request by MTI, STAN and RRN', async () => {
    const { port } = await startServer({ handler: approve });
    const { client } = await startClient(port);
    const response = await client.request(authorization('000001'));
    expect(response.mti).toBe('0110');
    expect(response.get(F.APPROVAL_CODE)).toBe('A00001');
  });

  it('delivers responses that come back in the reverse order to their own requests', async () => {
    const held: { request: IsoMessage; answer: (m: IsoMessage) => void }[] = [];
    const allHeld = gate();
    const { port } = await startServer({
      handler: (request) =>
        new Promise<IsoMessage>((answer) => {
          held.push({ request, answer });
          if (held.length === 5) allHeld.open();
        }),
    });
    const { client } = await startClient(port);
    const stans = ['000011', '000012', '000013', '000014', '000015'];
    const responses = Promise.all(stans.map((stan) => client.request(authorization(stan))));
    await allHeld.opened;
    for (const { request, answer } of [...held].reverse()) answer(approve(request));
    expect((await responses).map((r) => r.get(F.APPROVAL_CODE))).toEqual(stans.map((s) => `A${s.slice(1)}`));
  });

  it('reads frames a peer writes in pieces and frames it writes back to back', async () => {
    const codec = new IsoCodec();
    const framing = resolveFraming();
    const frame = (m: IsoMessage) => writeFrameHeader(codec.encode(m, 2), framing);
    // A raw peer: answers the first two requests in one write, the third cut into three writes.
    const received: IsoMessage[] = [];
    const raw: Server = createServer((socket: Socket) => {
      socket.on('data', () => undefined);
      const bytes = frame(approve(authorization('000003')));
      socket.write(
        Buffer.concat([frame(approve(authorization('000001'))), frame(approve(authorization('000002')))]),
      );
      socket.write(bytes.subarray(0, 1));
      socket.write(bytes.subarray(1, 9));
      socket.write(bytes.subarray(9));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => raw.close(resolve)));
    const port = (raw.address() as { port: number }).port;
    const events = new Events();
    const client = new IsoClient({ host: '127.0.0.1', port, echoIdleMs: 0, onEvent: events.listener });
    closers.push(() => client.close());
    // Requests are registered before the peer's bytes can be read: 'connected' fires in the same tick.
    const connected = events.next('connected');
    client.start();
    await connected;
    const all = ['000001', '000002', '000003'].map((stan) =>
      client.request(authorization(stan)).then((r) => received.push(r)),
    );
    await Promise.all(all);
    expect(received.map((r) => r.get(F.STAN)).sort()).toEqual(['000001', '000002', '000003']);
  });
});

describe('malformed input from the peer', () => {
  /** A raw TCP peer; `accepted` resolves with its end of the connection. */
  async function rawPeer(write: (socket: Socket) => void = () => undefined) {
    const peer = gate<Socket>();
    const raw: Server = createServer((socket: Socket) => {
      socket.on('data', () => undefined);
      write(socket);
      peer.open(socket);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const sockets: Socket[] = [];
    raw.on('connection', (s) => sockets.push(s));
    closers.push(() => new Promise((resolve) => raw.close(resolve)));
    closers.push(async () => sockets.forEach((s) => s.destroy()));
    return { port: (raw.address() as { port: number }).port, accepted: peer.opened };
  }

  it('drops an undecodable frame with a typed event and keeps the link', async () => {
    const codec = new IsoCodec();
    const framing = resolveFraming();
    const garbage = Buffer.from([0x00, 0x05, 0x30, 0x31, 0x31, 0x30, 0xff]);
    const good = writeFrameHeader(codec.encode(approve(authorization('000091')), 2), framing);
    const { port, accepted } = await rawPeer();
    const { client, events } = await startClient(port);
    const response = client.request(authorization('000091'));
    (await accepted).write(Buffer.concat([garbage, good]));
    const { error } = await events.next('format_error');
    expect({ field: error.field, reason: error.reason }).toEqual({ field: 1, reason: 'truncated' });
    await expect(response).resolves.toMatchObject({ mti: '0110' });
  });

  it('closes the connection on a header announcing more than the maximum frame', async () => {
    const { port } = await rawPeer((socket) => socket.write(Buffer.from([0xff, 0xff])));
    const events = new Events();
    const client = new IsoClient({ host: '127.0.0.1', port, echoIdleMs: 0, onEvent: events.listener });
    closers.push(() => client.close());
    client.start();
    expect(await events.next('frame_too_large')).toEqual({ type: 'frame_too_large', announced: 65_535 });
    await events.next('disconnected');
  });
});

describe('timeouts', () => {
  it('fails a request with a typed timeout and reports the late response as unmatched', async () => {
    fakeTimers();
    const late = gate();
    const arrived = gate();
    const { port } = await startServer({
      handler: (request) => {
        arrived.open();
        return late.opened.then(() => approve(request));
      },
    });
    const { client, events } = await startClient(port, { requestTimeoutMs: 1_000 });
    const outcome = client.request(authorization('000021')).catch((e: unknown) => e);
    await arrived.opened;
    jest.advanceTimersByTime(1_000);
    const error = (await outcome) as IsoLinkError;
    expect(error).toBeInstanceOf(IsoLinkError);
    expect(error.code).toBe('timeout');
    late.open();
    expect(await events.next('unmatched_response')).toEqual({
      type: 'unmatched_response',
      mti: '0110',
      stan: '000021',
    });
  });
});

describe('back-pressure', () => {
  it('refuses a request past maxInFlight with a typed overload error, and accepts again once one completes', async () => {
    const release = gate();
    const { port } = await startServer({ handler: (request) => release.opened.then(() => approve(request)) });
    const { client } = await startClient(port, { maxInFlight: 2 });
    const first = client.request(authorization('000031'));
    const second = client.request(authorization('000032'));
    await expect(client.request(authorization('000033'))).rejects.toMatchObject({ code: 'overloaded' });
    release.open();
    await Promise.all([first, second]);
    await expect(client.request(authorization('000034'))).resolves.toMatchObject({ mti: '0110' });
  });

  it('stops reading from a peer while maxInboundInFlight requests are being handled, then resumes', async () => {
    const release = gate();
    const { port, events } = await startServer({
      maxInboundInFlight: 1,
      handler: (request) => release.opened.then(() => approve(request)),
    });
    const { client } = await startClient(port);
    const both = Promise.all([
      client.request(authorization('000041')),
      client.request(authorization('000042')),
    ]);
    expect(await events.next('inbound_paused')).toEqual({ type: 'inbound_paused', inFlight: 1 });
    release.open();
    await events.next('inbound_resumed');
    expect((await both).map((r) => r.get(F.RESPONSE_CODE))).toEqual(['00', '00']);
  });

  it('refuses a second request with the same STAN and RRN while the first waits', async () => {
    const release = gate();
    const { port } = await startServer({ handler: (request) => release.opened.then(() => approve(request)) });
    const { client } = await startClient(port);
    const first = client.request(authorization('000051'));
    await expect(client.request(authorization('000051'))).rejects.toMatchObject({
      code: 'duplicate_request',
    });
    release.open();
    await first;
  });
});

describe('echo keep-alive', () => {
  it('sends an 0800 echo when the link is idle and the peer answers it with 0810', async () => {
    fakeTimers();
    const { port } = await startServer();
    const { events } = await startClient(port, { echoIdleMs: 30_000 });
    jest.advanceTimersByTime(30_000);
    expect(await events.next('echo_ok')).toEqual({ type: 'echo_ok' });
  });

  it('drops the link when an echo goes unanswered, so the client reconnects', async () => {
    fakeTimers();
    const silent: Server = createServer((socket) => socket.on('data', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets: Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    closers.push(() => new Promise((resolve) => silent.close(resolve)));
    closers.push(async () => sockets.forEach((s) => s.destroy()));
    const port = (silent.address() as { port: number }).port;
    const { events } = await startClient(port, { echoIdleMs: 10_000, requestTimeoutMs: 2_000 });
    jest.advanceTimersByTime(10_000);
    jest.advanceTimersByTime(2_000);
    expect(await events.next('echo_failed')).toEqual({ type: 'echo_failed', code: 'timeout' });
    await events.next('disconnected');
    expect((await events.next('reconnect_scheduled')).attempt).toBe(0);
  });
});

describe('reconnect with back-off', () => {
  it('doubles the delay per attempt up to the ceiling, less up to `jitter` of it', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.5 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => backoffDelay(attempt, options, () => 0))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(backoffDelay(2, options, () => 1)).toBe(200);
    expect(backoffDelay(2, options, () => 0.5)).toBe(300);
  });

  it('fails in-flight requests when the server drops, then reconnects when it comes back', async () => {
    fakeTimers();
    const hold = gate();
    const first = await startServer({ handler: (request) => hold.opened.then(() => approve(request)) });
    const { client, events } = await startClient(first.port, {
      reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.2 },
      random: () => 0,
    });
    const waiting = client.request(authorization('000061')).catch((e: unknown) => e);
    await first.events.next('connected');

    await first.server.close();
    expect(await waiting).toMatchObject({ code: 'connection_lost' });
    expect(await events.next('reconnect_scheduled')).toEqual({
      type: 'reconnect_scheduled',
      attempt: 0,
      delayMs: 100,
    });
    await expect(client.request(authorization('000062'))).rejects.toMatchObject({ code: 'not_connected' });

    // The server is still down at the first attempt: the next delay doubles.
    jest.advanceTimersByTime(100);
    expect(await events.next('reconnect_scheduled')).toEqual({
      type: 'reconnect_scheduled',
      attempt: 1,
      delayMs: 200,
    });

    await startServer({ handler: approve }, first.port);
    jest.advanceTimersByTime(200);
    await events.next('connected');
    await expect(client.request(authorization('000063'))).resolves.toMatchObject({ mti: '0110' });
  });
});

describe('graceful close', () => {
  it('fails waiting requests with `closed` and refuses new ones', async () => {
    const { port } = await startServer({ handler: () => new Promise<IsoMessage>(() => undefined) });
    const { client } = await startClient(port);
    const waiting = client.request(authorization('000071')).catch((e: unknown) => e);
    await client.close();
    expect(await waiting).toMatchObject({ code: 'closed' });
    await expect(client.request(authorization('000072'))).rejects.toMatchObject({ code: 'not_connected' });
  });

  it('lets the server end send requests to a connected client (network to issuer)', async () => {
    const { server, port, events } = await startServer();
    await startClient(port, { handler: approve });
    await events.next('connected');
    await expect(server.request(authorization('000081'))).resolves.toMatchObject({ mti: '0110' });
  });

  it('spreads requests from the server end over its connections in turn', async () => {
    const { server, port, events } = await startServer();
    const tagged = (tag: string) => (request: IsoMessage) =>
      new IsoMessage('0110', {
        [F.STAN]: request.get(F.STAN),
        [F.RRN]: request.get(F.RRN),
        [F.APPROVAL_CODE]: tag,
      });
    await startClient(port, { handler: tagged('FIRST ') });
    await startClient(port, { handler: tagged('SECOND') });
    await events.next('connected');
    await events.next('connected');
    const answered = await Promise.all(
      ['000082', '000083'].map((stan) => server.request(authorization(stan))),
    );
    expect(answered.map((r) => r.get(F.APPROVAL_CODE)).sort()).toEqual(['FIRST ', 'SECOND']);
  });
});
