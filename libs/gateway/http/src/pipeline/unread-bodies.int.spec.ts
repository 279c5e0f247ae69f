import { Controller, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@cip/shared/runtime';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createNestFastifyApp } from '../nest-fastify-app';
import { installRequestBodies } from './request-bodies';

@Controller('v1')
class EchoController {
  @Post('echo')
  echo() {
    return { ok: true };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/**
 * A client in another process (as every real one is) sends bodies over the limit, each written at once (8 MB:
 * more than the loopback buffers hold, so it is still writing when the answer comes), and reads the answer.
 * Prints how many of the tries were answered 413 (before the drain: one in ten at most, the others reset).
 */
const CLIENT = `
const { connect } = require('node:net');
const [port, tries] = process.argv.slice(1).map(Number);
const body = Buffer.from('{"a":"' + 'a'.repeat(8 * 1024 * 1024) + '"}');
const send = () => new Promise((resolve) => {
  const socket = connect(port, '127.0.0.1');
  const chunks = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').split('\\r\\n')[0]));
  socket.write(Buffer.concat([Buffer.from('POST /v1/echo HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n' +
    'content-type: application/json\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n'), body]));
});
(async () => {
  let answered = 0;
  for (let i = 0; i < tries; i++) if ((await send()).startsWith('HTTP/1.1 413')) answered++;
  process.stdout.write(String(answered));
})();
`;

describe('a body over the limit, sent whole by a client in another process', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await createNestFastifyApp(EchoModule, {
      logger: createLogger('silent'),
      bodyLimitBytes: 1024 * 1024,
    });
    installRequestBodies(app.getHttpAdapter().getInstance(), '/hosted');
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('is answered 413 every time, never a connection reset', async () => {
    const tries = 10;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '-e',
      CLIENT,
      String(port),
      String(tries),
    ]);
    expect(Number(stdout)).toBe(tries);
  });
});
