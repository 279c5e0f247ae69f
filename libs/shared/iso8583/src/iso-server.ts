import { createServer, type AddressInfo, type Server } from 'node:net';
import { IsoLinkError } from './errors';
import { IsoConnection } from './iso-connection';
import type { IsoLinkOptions, RequestOptions } from './link-options';
import type { IsoMessage } from './iso-message';

/**
 * The accepting end of a link: every accepted socket becomes an {@link IsoConnection} with the same options
 * (handler, limits, echo). `request` sends over the open connections in turn.
 */
export class IsoServer {
  private readonly server: Server;
  private readonly open = new Set<IsoConnection>();
  private next = 0;

  constructor(private readonly options: IsoLinkOptions = {}) {
    this.server = createServer((socket) => {
      const connection = new IsoConnection(socket, options);
      this.open.add(connection);
      options.onEvent?.({ type: 'connected', remote: connection.remote });
      void connection.closed.then(() => this.open.delete(connection));
    });
  }

  /** Listens (on loopback by default) and resolves with the bound port. */
  listen(port = 0, host = '127.0.0.1'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  get connections(): ReadonlySet<IsoConnection> {
    return this.open;
  }

  request(message: IsoMessage, options?: RequestOptions): Promise<IsoMessage> {
    // Round robin without an array per call: skip `next` open connections, wrapping.
    let open = 0;
    for (const connection of this.open) if (connection.isOpen) open++;
    if (!open) return Promise.reject(new IsoLinkError('not_connected', 'no peer connected'));
    let skip = this.next++ % open;
    for (const connection of this.open) {
      if (connection.isOpen && skip-- === 0) return connection.request(message, options);
    }
    return Promise.reject(new IsoLinkError('not_connected', 'no peer connected'));
  }

  /** Stops accepting and closes every connection; their waiting requests fail with `closed`. */
  async close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all([...this.open].map((connection) => connection.close()));
    await stopped;
  }
}
