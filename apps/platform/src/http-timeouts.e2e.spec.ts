import { connect, Socket } from 'node:net';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';

/** What the server sent before it closed the connection, or a failure when it did not close it in time. */
function closedWith(socket: Socket, withinMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const timer = setTimeout(
      () => reject(new Error(`the server kept the connection open for more than ${withinMs} ms`)),
      withinMs,
    );
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => undefined);
  });
}

/** Node answers 408 when it can, or just closes; it never serves the request. */
const expectTimedOut = (received: string) =>
  expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);

describe('slow and incomplete requests', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness({ httpTimeouts: { headersMs: 300, requestMs: 600 } });
    port = Number(new URL(h.url).port);
  });
  afterAll(() => h.close());

  const open = () =>
    new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
    });

  it('closes a connection whose headers never end', async () => {
    const socket = await open();
    socket.write('POST /v1/users HTTP/1.1\r\nHost: localhost\r\nx-api-key: ');
    expectTimedOut(await closedWith(socket, 3_000));
  });

  it('closes a connection whose body is shorter than its Content-Length, without creating anything', async () => {
    const before = await h.http.get('/v1/users').set({ 'x-api-key': SANDBOX_KEY });
    const socket = await open();
    socket.write(
      'POST /v1/users HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\n' +
        `x-api-key: ${SANDBOX_KEY}\r\ncontent-length: 200\r\n\r\n{"email":"slow@example.com"`,
    );
    expectTimedOut(await closedWith(socket, 3_000));
    const after = await h.http.get('/v1/users').set({ 'x-api-key': SANDBOX_KEY });
    expect(after.body.count).toBe(before.body.count);
  });

  it('still serves a request that arrives in time', async () => {
    expect((await h.http.get('/v1/users').set({ 'x-api-key': SANDBOX_KEY })).status).toBe(200);
  });
});
