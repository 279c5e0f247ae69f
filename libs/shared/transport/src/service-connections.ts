import type { ClientProxy } from '@nestjs/microservices';
import { from, lastValueFrom, timeout, TimeoutError, type Observable, type Subscription } from 'rxjs';

export interface ServiceConnectionOptions {
  /** Connections kept open to the service, used in turn (SERVICE_CONNECTIONS, default 4). */
  connections?: number;
  /** A connection is replaced after this many commands (SERVICE_CONNECTION_MAX_COMMANDS, default 1000)… */
  maxCommandsPerConnection?: number;
  /** …or once it is this old (SERVICE_CONNECTION_MAX_AGE_MS, default 30 s), whichever comes first. */
  maxConnectionAgeMs?: number;
}

/** The defaults of {@link ServiceConnectionOptions}, overridden by the process's environment. */
export function readServiceConnectionOptions(env: NodeJS.ProcessEnv = process.env): ServiceConnectionOptions {
  const positive = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} must be a positive integer, got ${raw}`);
    return value;
  };
  return {
    connections: positive('SERVICE_CONNECTIONS', 4),
    maxCommandsPerConnection: positive('SERVICE_CONNECTION_MAX_COMMANDS', 1000),
    maxConnectionAgeMs: positive('SERVICE_CONNECTION_MAX_AGE_MS', 30_000),
  };
}

/**
 * A command that was written to no connection (the pool is closed, or no connection opened, in time or at
 * all): the service cannot have run it. Any other failure of `send` may come after the service got it.
 */
export class CommandNotSent extends Error {
  constructor(message: string, cause?: unknown) {
    super(message);
    this.name = 'CommandNotSent';
    if (cause !== undefined) this.cause = cause;
  }
}

/** What the pool uses of a Nest client (a ClientTCP in the apps, a fake in tests). */
export type ServiceConnection = Pick<ClientProxy, 'connect' | 'send' | 'close'> & {
  /** `disconnected` once the socket closed (a replica gone): the connection leaves the pool at once. */
  readonly status?: Observable<string>;
};

interface Connection {
  readonly client: ServiceConnection;
  readonly openedAt: number;
  commands: number;
  inFlight: number;
  /** Out of the pool: closed as soon as its last reply is in. */
  retired: boolean;
  watch?: Subscription;
}

/**
 * The connections of one client to one service. A Kubernetes Service balances connections, not messages:
 * one long-lived TCP connection would pin every command to the replica it first landed on, and a replica
 * started later would never get any. So commands go round-robin over a few connections, and each is
 * replaced after a number of commands or an age; its replacement is a new connection, which the Service
 * lands on whichever replica it picks. A replaced connection is closed once its replies are in (closing
 * a Nest ClientTCP fails whatever is still waiting on it).
 *
 * A connection that cannot be opened (a replica gone, the port refusing) is dropped and the command is
 * tried on the next one: nothing was written, so nothing can run twice. A connection that breaks with a
 * command on it, or on which a command times out, is dropped too, but that command fails (the replica may
 * have run it): the caller's breaker counts it, and retries are the API caller's, under its idempotency key.
 */
export class ServiceConnections {
  private readonly slots: (Connection | null)[];
  private next = 0;
  private readonly maxCommands: number;
  private readonly maxAgeMs: number;
  private closed = false;

  constructor(
    private readonly open: () => ServiceConnection,
    options: ServiceConnectionOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.slots = new Array<Connection | null>(Math.max(1, options.connections ?? 4)).fill(null);
    this.maxCommands = options.maxCommandsPerConnection ?? 1000;
    this.maxAgeMs = options.maxConnectionAgeMs ?? 30_000;
  }

  /**
   * Sends a command on the next connection and resolves with its reply; rejects once `timeoutMs` have
   * passed, opening the connection included (a replica that drops SYNs): with CommandNotSent when no
   * connection opened (in time), with the TimeoutError once the command was written.
   */
  async send(pattern: unknown, message: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) throw new CommandNotSent('The service connections are closed');
    const deadline = this.now() + timeoutMs;
    let refused: unknown;
    for (let tries = 0; tries < this.slots.length; tries++) {
      const index = this.next;
      this.next = (this.next + 1) % this.slots.length;
      const connection = this.take(index);
      try {
        await lastValueFrom(from(connection.client.connect()).pipe(timeout(this.remaining(deadline))));
      } catch (error) {
        // Never written: the next connection (a new one, maybe to another replica) may take it.
        this.release(connection);
        this.retire(index, connection);
        if (error instanceof TimeoutError) throw new CommandNotSent('No connection opened in time', error);
        refused = error;
        continue;
      }
      return this.sendOn(index, connection, pattern, message, this.remaining(deadline));
    }
    throw new CommandNotSent('No connection could be opened', refused);
  }

  private remaining(deadline: number): number {
    return Math.max(1, deadline - this.now());
  }

  /** Connections open now (tests, and the breaker's report). */
  get size(): number {
    return this.slots.filter((slot) => slot !== null).length;
  }

  close(): void {
    this.closed = true;
    for (let index = 0; index < this.slots.length; index++) {
      const connection = this.slots[index];
      if (connection) this.retire(index, connection);
    }
  }

  /** The connection of slot `index`, renewed first when it has carried enough commands or is old enough. */
  private take(index: number): Connection {
    let connection = this.slots[index];
    if (
      connection &&
      (connection.commands >= this.maxCommands || this.now() - connection.openedAt >= this.maxAgeMs)
    ) {
      this.retire(index, connection);
      connection = null;
    }
    if (!connection) {
      const fresh: Connection = {
        client: this.open(),
        openedAt: this.now(),
        commands: 0,
        inFlight: 0,
        retired: false,
      };
      // A connection closed by the other end is not reopened to the same replica by the next command.
      fresh.watch = fresh.client.status?.subscribe((status) => {
        if (status === 'disconnected') this.retire(index, fresh);
      });
      this.slots[index] = connection = fresh;
    }
    // Counted in flight from here: a command waiting for the connection to open keeps it from closing.
    connection.commands++;
    connection.inFlight++;
    return connection;
  }

  private async sendOn(
    index: number,
    connection: Connection,
    pattern: unknown,
    message: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    try {
      // The deadline also unsubscribes, so a reply that never comes does not stay registered.
      return await lastValueFrom(connection.client.send(pattern, message).pipe(timeout(timeoutMs)));
    } catch (error) {
      // A replica that does not answer in time is left too: the next command opens a new connection,
      // which may land elsewhere (this one closes once its other commands are answered or timed out).
      if (isConnectionLost(error) || error instanceof TimeoutError) this.retire(index, connection);
      throw error;
    } finally {
      this.release(connection);
    }
  }

  private release(connection: Connection): void {
    connection.inFlight--;
    if (connection.retired && connection.inFlight === 0) connection.client.close();
  }

  /** Out of the pool; closed now if idle, else by its last reply (a broken one has no replies left). */
  private retire(index: number, connection: Connection): void {
    if (this.slots[index] === connection) this.slots[index] = null;
    if (connection.retired) return;
    connection.retired = true;
    connection.watch?.unsubscribe();
    if (connection.inFlight === 0) connection.client.close();
  }
}

/** The errors of a connection that broke or never opened (Nest's ClientTCP and Node's sockets). */
function isConnectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (
    message === 'Connection closed' ||
    code === 'ECONNRESET' ||
    code === 'ECONNREFUSED' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT'
  );
}
