import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientTCP, MessagePattern, MicroserviceOptions, Transport } from '@nestjs/microservices';
import { createLogger } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ServiceClient } from './context-client';
import { ServiceConnections } from './service-connections';

const logger = createLogger('silent');

/** One replica of a tiny service: answers which replica it is, at once or after a while. */
async function startReplica(name: string): Promise<{ app: INestMicroservice; port: number }> {
  @Controller()
  class WhoAmI {
    @MessagePattern({ cmd: 'whoami' })
    whoami() {
      return name;
    }

    @MessagePattern({ cmd: 'hang' })
    hang() {
      return new Promise(() => undefined);
    }

    @MessagePattern({ cmd: 'slow' })
    async slow() {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return name;
    }
  }
  @Module({ controllers: [WhoAmI] })
  class ReplicaModule {}
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(ReplicaModule, {
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: 0 },
    logger: false,
  });
  await app.listen();
  return { app, port: (app.unwrap<Server>().address() as AddressInfo).port };
}

/**
 * What a Kubernetes Service does with TCP: each new connection goes to the next replica in turn, and a
 * replica that refuses is skipped (as once its endpoint is removed). `kill` plays a crashed replica: its
 * connections are reset and it refuses new ones.
 */
function roundRobinProxy(backends: number[]) {
  const dead = new Set<number>();
  const upstreams = new Map<number, Set<Socket>>(backends.map((port) => [port, new Set()]));
  let next = 0;
  const server = createServer((client) => {
    const attempt = (tries: number) => {
      if (tries >= backends.length) return client.destroy();
      const port = backends[next];
      next = (next + 1) % backends.length;
      if (dead.has(port)) return attempt(tries + 1);
      const upstream = createConnection({ host: '127.0.0.1', port });
      let connected = false;
      upstream.once('error', () => (connected ? client.destroy() : attempt(tries + 1)));
      upstream.once('connect', () => {
        connected = true;
        upstreams.get(port)!.add(upstream);
        upstream.on('close', () => {
          upstreams.get(port)!.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    attempt(0);
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
      ),
    kill: (port: number) => {
      dead.add(port);
      for (const socket of upstreams.get(port)!) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('ServiceClient: commands spread over the replicas of a service', () => {
  let replicas: { app: INestMicroservice; port: number }[];
  let proxy: ReturnType<typeof roundRobinProxy>;
  let proxyPort: number;
  const clients: ServiceClient[] = [];

  beforeAll(async () => {
    replicas = [await startReplica('a'), await startReplica('b')];
  });

  beforeEach(async () => {
    proxy = roundRobinProxy(replicas.map((r) => r.port));
    proxyPort = await proxy.listen();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.shutdown();
    await proxy.close();
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.app.close();
  });

  const serviceClient = (
    options: ConstructorParameters<typeof ServiceConnections>[1],
    timeoutMs?: number,
  ) => {
    const connections = new ServiceConnections(
      () => new ClientTCP({ host: '127.0.0.1', port: proxyPort }),
      options,
    );
    const client = new ServiceClient('echo', connections, logger, { timeoutMs });
    clients.push(client);
    return { client, connections };
  };

  const whoami = (client: ServiceClient, cmd = 'whoami') => client.send({ cmd }, {}) as Promise<string>;

  it('sends commands over several connections, which land on different replicas', async () => {
    const { client } = serviceClient({ connections: 4 });
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await whoami(client));
    expect(new Set(answers)).toEqual(new Set(['a', 'b']));
  });

  it('replaces a connection after its commands, so even one connection reaches every replica', async () => {
    const { client } = serviceClient({ connections: 1, maxCommandsPerConnection: 5 });
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await whoami(client));
    expect(new Set(answers)).toEqual(new Set(['a', 'b']));
  });

  it('lets the replies on a replaced connection come in before closing it', async () => {
    const { client } = serviceClient({ connections: 1, maxCommandsPerConnection: 3 });
    // Twelve slow commands at once: four connections in turn, each replaced while its three are in flight.
    const answers = await Promise.all(Array.from({ length: 12 }, () => whoami(client, 'slow')));
    expect(answers).toHaveLength(12);
    expect(new Set(answers)).toEqual(new Set(['a', 'b']));
  });

  it('drops the connections of a replica that died and sends to the live one', async () => {
    const { client, connections } = serviceClient({ connections: 2 });
    expect(new Set([await whoami(client), await whoami(client)])).toEqual(new Set(['a', 'b']));
    expect(connections.size).toBe(2);

    proxy.kill(replicas[1].port);
    await waitFor(() => connections.size === 1, {
      what: 'the connection to the dead replica to leave the pool',
      timeoutMs: 5_000,
    });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await whoami(client));
    expect(answers).toEqual(Array(10).fill('a'));
    expect(client.breakerState).toBe('closed');
  });

  it('leaves a connection on which a command timed out: the next command opens a new one', async () => {
    const { client } = serviceClient({ connections: 1 }, 200);
    // Sent and unanswered: the replica may still run it (a keyed request's gateway does not store this 503).
    await expect(whoami(client, 'hang')).rejects.toMatchObject({
      code: 'service_unavailable',
      fate: 'unknown',
    });
    // The first connection went to replica a; its replacement is the proxy's next, replica b.
    expect(await whoami(client)).toBe('b');
  });

  it('tries a command on the next connection when one cannot be opened (nothing was sent)', async () => {
    const refusing = createServer();
    const refusedPort = await new Promise<number>((resolve) =>
      refusing.listen(0, '127.0.0.1', () => resolve((refusing.address() as AddressInfo).port)),
    );
    await new Promise((resolve) => refusing.close(resolve));
    let opened = 0;
    const connections = new ServiceConnections(
      // The first connection goes to a port nobody listens on any more, the next ones to the service.
      () => new ClientTCP({ host: '127.0.0.1', port: opened++ === 0 ? refusedPort : proxyPort }),
      { connections: 2 },
    );
    const client = new ServiceClient('echo', connections, logger);
    clients.push(client);
    expect(['a', 'b']).toContain(await whoami(client));
    expect(opened).toBe(2);
  });

  it('fails a command no connection could be opened for as never run, and one the open breaker refuses', async () => {
    const refusing = createServer();
    const refusedPort = await new Promise<number>((resolve) =>
      refusing.listen(0, '127.0.0.1', () => resolve((refusing.address() as AddressInfo).port)),
    );
    await new Promise((resolve) => refusing.close(resolve));
    const connections = new ServiceConnections(
      () => new ClientTCP({ host: '127.0.0.1', port: refusedPort }),
      {
        connections: 2,
      },
    );
    const client = new ServiceClient('echo', connections, logger);
    clients.push(client);
    const neverRun = { code: 'service_unavailable', fate: 'not_run' };
    // Enough refused calls to open the breaker (its volume threshold is 5); then it refuses them itself.
    for (let i = 0; i < 5; i++) await expect(whoami(client)).rejects.toMatchObject(neverRun);
    expect(client.breakerState).toBe('open');
    await expect(whoami(client)).rejects.toMatchObject(neverRun);
  });
});
