import type { Socket } from 'node:net';
import { IsoCodec } from './codec';
import { IsoFormatError, IsoLinkError, type IsoLinkErrorCode } from './errors';
import { F } from './field-spec';
import {
  FrameDecoder,
  FrameTooLargeError,
  resolveFraming,
  writeFrameHeader,
  type ResolvedFraming,
} from './framing';
import { isResponseMti, responseMtiOf, type IsoMessage } from './iso-message';
import type { IsoLinkEvent, IsoLinkOptions, IsoRequestHandler, RequestOptions } from './link-options';
import { ECHO_TEST, echoRequest, echoResponse, matchKey } from './network-management';
import { StanSequence } from './stan';

interface Pending {
  resolve: (response: IsoMessage) => void;
  reject: (error: IsoLinkError) => void;
  timer: NodeJS.Timeout;
}

/**
 * One ISO 8583 conversation over one TCP socket, the same at both ends: sends requests and matches their
 * responses, answers inbound requests with the handler, answers 0800 echoes itself and sends its own when the
 * link is idle. Used through {@link IsoClient} (reconnecting) or {@link IsoServer} (accepting).
 */
export class IsoConnection {
  readonly remote: string;
  private readonly codec: IsoCodec;
  private readonly framing: ResolvedFraming;
  private readonly decoder: FrameDecoder;
  private readonly pending = new Map<string, Pending>();
  private readonly echoStans = new StanSequence();
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private inboundInFlight = 0;
  private paused = false;
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** Resolves once the socket is closed and every waiting request has failed. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Socket,
    private readonly options: IsoLinkOptions = {},
  ) {
    this.remote = `${socket.remoteAddress}:${socket.remotePort}`;
    this.codec = options.codec ?? new IsoCodec();
    this.framing = resolveFraming(options.framing);
    this.decoder = new FrameDecoder(this.framing, (buffer, start, end) => this.onFrame(buffer, start, end));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.decoder.push(chunk);
      } catch (error) {
        // An oversized header means the byte stream is out of step: nothing after it can be trusted.
        if (error instanceof FrameTooLargeError)
          this.emit({ type: 'frame_too_large', announced: error.announced });
        socket.destroy();
      }
    });
    // 'close' always follows 'error'; the error itself carries nothing a caller can act on.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        const failed = this.failAll(this.state === 'open' ? 'connection_lost' : 'closed');
        this.state = 'closed';
        if (this.idleTimer) clearTimeout(this.idleTimer);
        this.emit({ type: 'disconnected', remote: this.remote, failedInFlight: failed });
        resolve();
      }),
    );
    const idleMs = options.echoIdleMs ?? 30_000;
    if (idleMs > 0) this.idleTimer = setTimeout(() => this.onIdle(), idleMs);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Outbound requests waiting for their response. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends a request or advice and resolves with its response. Rejects with {@link IsoLinkError}: `overloaded`
   * past `maxInFlight` (at once, nothing sent), `timeout`, `connection_lost`, `closed`, `duplicate_request`,
   * `not_a_request`; with {@link IsoFormatError} when the message does not fit the field spec.
   */
  request(message: IsoMessage, options: RequestOptions = {}): Promise<IsoMessage> {
    if (this.state !== 'open') {
      return Promise.reject(
        new IsoLinkError(this.state === 'closed' ? 'connection_lost' : 'closed', 'link not open'),
      );
    }
    if (isResponseMti(message.mti) || !message.get(F.STAN)) {
      return Promise.reject(new IsoLinkError('not_a_request', `${message.mti} is not a request with a STAN`));
    }
    if (this.pending.size >= (this.options.maxInFlight ?? 1_024)) {
      return Promise.reject(
        new IsoLinkError('overloaded', `${this.pending.size} requests already in flight`),
      );
    }
    const key = matchKey(responseMtiOf(message.mti), message);
    if (this.pending.has(key)) {
      return Promise.reject(
        new IsoLinkError('duplicate_request', `${message.mti} with this STAN/RRN in flight`),
      );
    }
    let framed: Buffer;
    try {
      framed = this.frame(message);
    } catch (error) {
      return Promise.reject(error);
    }
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? 5_000;
    return new Promise<IsoMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new IsoLinkError('timeout', `no ${responseMtiOf(message.mti)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(key, { resolve, reject, timer });
      this.socket.write(framed);
    });
  }

  /** Sends a message that expects no response (a response to a request, a notification). */
  send(message: IsoMessage): void {
    if (this.state === 'closed') throw new IsoLinkError('connection_lost', 'link not open');
    this.socket.write(this.frame(message));
  }

  /**
   * Closes the link: waiting requests fail at once with `closed` (the peer may still act on them: reversal
   * logic decides), written bytes are flushed, then the socket ends.
   */
  close(): Promise<void> {
    if (this.state === 'open') {
      this.state = 'closing';
      this.failAll('closed');
      this.socket.end(() => this.socket.destroy());
    }
    return this.closed;
  }

  private frame(message: IsoMessage): Buffer {
    return writeFrameHeader(this.codec.encode(message, this.framing.headerLength), this.framing);
  }

  private failAll(code: IsoLinkErrorCode): number {
    const count = this.pending.size;
    for (const [, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new IsoLinkError(code, code === 'closed' ? 'link closed' : 'connection lost'));
    }
    this.pending.clear();
    return count;
  }

  private onFrame(buffer: Buffer, start: number, end: number): void {
    this.idleTimer?.refresh();
    let message: IsoMessage;
    try {
      message = this.codec.decode(buffer, start, end);
    } catch (error) {
      if (error instanceof IsoFormatError) this.emit({ type: 'format_error', error });
      else throw error;
      return;
    }
    if (isResponseMti(message.mti)) this.onResponse(message);
    else this.onRequest(message);
  }

  private onResponse(response: IsoMessage): void {
    const key = matchKey(response.mti, response);
    const pending = this.pending.get(key);
    if (!pending) {
      this.emit({ type: 'unmatched_response', mti: response.mti, stan: response.get(F.STAN) });
      return;
    }
    this.pending.delete(key);
    clearTimeout(pending.timer);
    pending.resolve(response);
  }

  private onRequest(request: IsoMessage): void {
    if (request.mti === '0800' && request.get(F.NETWORK_MANAGEMENT_CODE) === ECHO_TEST) {
      this.reply(echoResponse(request));
      return;
    }
    const handler = this.options.handler;
    if (!handler) {
      this.emit({ type: 'unhandled_request', mti: request.mti });
      return;
    }
    let result: ReturnType<IsoRequestHandler>;
    try {
      result = handler(request);
    } catch (error) {
      this.emit({ type: 'handler_failed', mti: request.mti, error });
      return;
    }
    if (!(result instanceof Promise)) {
      if (result) this.reply(result);
      return;
    }
    this.inboundInFlight++;
    if (!this.paused && this.inboundInFlight >= (this.options.maxInboundInFlight ?? 1_024)) {
      this.paused = true;
      this.socket.pause();
      this.emit({ type: 'inbound_paused', inFlight: this.inboundInFlight });
    }
    result.then(
      (response) => {
        this.inboundDone();
        if (response) this.reply(response);
      },
      (error: unknown) => {
        this.inboundDone();
        this.emit({ type: 'handler_failed', mti: request.mti, error });
      },
    );
  }

  private inboundDone(): void {
    this.inboundInFlight--;
    if (this.paused && this.inboundInFlight < (this.options.maxInboundInFlight ?? 1_024)) {
      this.paused = false;
      if (this.state !== 'closed') this.socket.resume();
      this.emit({ type: 'inbound_resumed' });
    }
  }

  private reply(response: IsoMessage): void {
    if (this.state === 'closed') return;
    try {
      this.send(response);
    } catch (error) {
      this.emit({ type: 'handler_failed', mti: response.mti, error });
    }
  }

  private onIdle(): void {
    if (this.state !== 'open') return;
    this.request(echoRequest(this.echoStans.next(), new Date())).then(
      () => this.emit({ type: 'echo_ok' }),
      (error: unknown) => {
        const code = error instanceof IsoLinkError ? error.code : 'format';
        this.emit({ type: 'echo_failed', code });
        // A peer that does not answer an echo is gone: drop the link so the client end reconnects.
        if (code === 'timeout') this.socket.destroy();
      },
    );
    this.idleTimer?.refresh();
  }

  private emit(event: IsoLinkEvent): void {
    this.options.onEvent?.(event);
  }
}
