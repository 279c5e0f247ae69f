import { connect, type Socket } from 'node:net';
import { IsoLinkError } from './errors';
import { IsoConnection } from './iso-connection';
import type { IsoLinkOptions, RequestOptions } from './link-options';
import type { IsoMessage } from './iso-message';

export interface ReconnectOptions {
  /** First delay after a drop or a failed connect. Default 100 ms. */
  initialDelayMs?: number;
  /** Ceiling of the doubling delay. Default 10,000 ms. */
  maxDelayMs?: number;
  /** Fraction of the delay taken off at random, so that many clients do not reconnect in step. Default 0.2. */
  jitter?: number;
}

export interface IsoClientOptions extends IsoLinkOptions {
  host: string;
  port: number;
  reconnect?: ReconnectOptions;
  /** Source of randomness for the jitter; tests pin it. */
  random?: () => number;
}

/** The delay before reconnect attempt `attempt` (0-based): doubling from the initial delay, capped, less jitter. */
export function backoffDelay(
  attempt: number,
  options: ReconnectOptions = {},
  random: () => number = Math.random,
): number {
  const initial = options.initialDelayMs ?? 100;
  const max = options.maxDelayMs ?? 10_000;
  const jitter = options.jitter ?? 0.2;
  const base = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 - jitter * random()));
}

/**
 * The connecting end of a link: keeps one {@link IsoConnection} open to `host:port`, reconnecting with
 * exponential back-off and jitter whenever it drops, until `close()`. While it is down, `request` fails at once
 * with `not_connected` rather than queueing: an authorization has a deadline, and the caller decides (stand-in,
 * decline) better than a queue does.
 */
export class IsoClient {
  private connection: IsoConnection | undefined;
  private socket: Socket | undefined;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: IsoClientOptions) {}

  /** Starts connecting (and reconnecting); watch `onEvent` for `connected`. */
  start(): void {
    this.stopped = false;
    this.dial();
  }

  get isConnected(): boolean {
    return this.connection?.isOpen ?? false;
  }

  /** The open connection's outbound requests awaiting their response. */
  get inFlight(): number {
    return this.connection?.inFlight ?? 0;
  }

  request(message: IsoMessage, options?: RequestOptions): Promise<IsoMessage> {
    const connection = this.connection;
    if (!connection?.isOpen) return Promise.reject(new IsoLinkError('not_connected', 'link is reconnecting'));
    return connection.request(message, options);
  }

  send(message: IsoMessage): void {
    const connection = this.connection;
    if (!connection?.isOpen) throw new IsoLinkError('not_connected', 'link is reconnecting');
    connection.send(message);
  }

  /** Stops reconnecting and closes the open connection; its waiting requests fail with `closed`. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    if (this.connection) await this.connection.close();
    else this.socket?.destroy();
  }

  private dial(): void {
    if (this.stopped) return;
    const socket = connect({ host: this.options.host, port: this.options.port });
    this.socket = socket;
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      this.attempt = 0;
      const connection = new IsoConnection(socket, this.options);
      this.connection = connection;
      this.options.onEvent?.({ type: 'connected', remote: connection.remote });
    });
    socket.once('close', () => {
      this.connection = undefined;
      this.socket = undefined;
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delayMs = backoffDelay(this.attempt, this.options.reconnect, this.options.random);
    this.options.onEvent?.({ type: 'reconnect_scheduled', attempt: this.attempt, delayMs });
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.dial();
    }, delayMs);
  }
}
