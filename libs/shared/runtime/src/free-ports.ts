import { existsSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';

/**
 * Ports for the processes a test (or `npm run start:split` with SPLIT_PORTS=free) starts: free on loopback now,
 * and not handed to anyone else before the process listens on them. In the runtime lib, not the testing one,
 * because the split launcher uses it too.
 * - Below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768-60999 on Linux), from
 *   which `listen(0)` and every outgoing connection draw: a port the OS picked for us and we closed can go to any
 *   socket of the machine before the child binds it. A CI run lost a split topology that way: its users service
 *   died on EADDRINUSE while another Jest worker's process, started on the same port a moment earlier, answered
 *   its /health, so the topology looked healthy and every request after got 503.
 * - In a block of its own per Jest worker (`JEST_WORKER_ID`), so two workers never pick the same one.
 * - Each confirmed free by binding it, all held open together until all are known; handed out from a cursor
 *   that moves on (from a random start), so a file's second topology or restarted process does not take back the
 *   ports of the one before.
 * Written here rather than taken from `get-port` and the like: those pick from the whole range, ephemeral ports
 * included, which is the race above.
 */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const held: Server[] = [];
  try {
    for (let tried = 0; ports.length < count; tried++) {
      if (tried >= BLOCK_SIZE) throw new Error(`No ${count} free ports in ${describeBlock()}`);
      const port = nextPort();
      const server = await bound(port);
      if (!server) continue;
      held.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((server) => new Promise((closed) => server.close(closed))));
  }
}

/** One port, as `freePorts(1)`. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

const BLOCK_SIZE = 2_000;
const LOWEST = 12_000;

/** The first port the kernel hands out on its own (the ephemeral range's start). */
function ephemeralStart(): number {
  const file = '/proc/sys/net/ipv4/ip_local_port_range';
  const start = existsSync(file) ? Number(readFileSync(file, 'utf8').trim().split(/\s+/)[0]) : NaN;
  return Number.isInteger(start) && start > LOWEST ? start : 32_768;
}

/** This worker's block: [from, from + size), below the ephemeral range. */
const block = (() => {
  const blocks = Math.max(1, Math.floor((ephemeralStart() - LOWEST) / BLOCK_SIZE));
  const worker = Math.max(1, Number(process.env.JEST_WORKER_ID) || 1);
  return { from: LOWEST + ((worker - 1) % blocks) * BLOCK_SIZE, size: BLOCK_SIZE };
})();

let cursor = Math.floor(Math.random() * block.size);

function nextPort(): number {
  const port = block.from + (cursor % block.size);
  cursor += 1;
  return port;
}

function describeBlock(): string {
  return `${block.from}-${block.from + block.size - 1} (Jest worker ${process.env.JEST_WORKER_ID ?? 1})`;
}

/** A server listening on `port` on loopback, or undefined if something else has it. */
function bound(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
