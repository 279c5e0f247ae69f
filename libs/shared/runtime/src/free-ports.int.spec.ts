import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';

/** freePorts as a Jest worker of the given id loads it (each worker has its own block). */
function portsModuleOf(workerId: string): typeof import('./free-ports') {
  const before = process.env.JEST_WORKER_ID;
  process.env.JEST_WORKER_ID = workerId;
  try {
    let loaded!: typeof import('./free-ports');
    jest.isolateModules(() => {
      loaded = jest.requireActual('./free-ports');
    });
    return loaded;
  } finally {
    process.env.JEST_WORKER_ID = before;
  }
}

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);

const listenOn = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: Server) => new Promise((closed) => server.close(closed));

describe('freePorts: ports for the processes a test starts', () => {
  it('gives distinct ports below the ephemeral range (no outgoing connection or listen(0) takes them), each bindable', async () => {
    const ports = await portsModuleOf('1').freePorts(40);
    expect(new Set(ports).size).toBe(40);
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
    const servers = await Promise.all(ports.map(listenOn));
    await Promise.all(servers.map(close));
  });

  it('gives two Jest workers disjoint ports, and one worker new ports on each call', async () => {
    const first = portsModuleOf('1');
    const second = portsModuleOf('2');
    const a1 = await first.freePorts(30);
    const a2 = await first.freePorts(30);
    const b = await second.freePorts(30);
    expect(a1.filter((port) => a2.includes(port))).toEqual([]);
    expect([...a1, ...a2].filter((port) => b.includes(port))).toEqual([]);
  });

  it('skips a port something else listens on', async () => {
    const probe = portsModuleOf('3');
    const [taken] = await probe.freePorts(1);
    const holder = await listenOn(taken + 1);
    try {
      // The cursor moves on from `taken`: the next candidate is the held one, which it must pass over.
      const [next] = await probe.freePorts(1);
      expect(next).not.toBe(taken + 1);
      expect(next).toBeLessThan(ephemeralStart);
    } finally {
      await close(holder);
    }
  });
});
