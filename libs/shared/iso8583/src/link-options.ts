import type { IsoFormatError, IsoLinkErrorCode } from './errors';
import type { FramingOptions } from './framing';
import type { IsoCodec } from './codec';
import type { IsoMessage } from './iso-message';

/** Answers an inbound request or advice; returning nothing sends nothing (the peer's request times out). */
export type IsoRequestHandler = (request: IsoMessage) => IsoMessage | void | Promise<IsoMessage | void>;

/** What happened on a link, for metrics and logs. Carries no message content beyond MTI and STAN. */
export type IsoLinkEvent =
  | { type: 'connected'; remote: string }
  | { type: 'disconnected'; remote: string; failedInFlight: number }
  | { type: 'reconnect_scheduled'; attempt: number; delayMs: number }
  | { type: 'format_error'; error: IsoFormatError }
  | { type: 'frame_too_large'; announced: number }
  | { type: 'unmatched_response'; mti: string; stan: string | undefined }
  | { type: 'unhandled_request'; mti: string }
  | { type: 'handler_failed'; mti: string; error: unknown }
  | { type: 'echo_ok' }
  | { type: 'echo_failed'; code: IsoLinkErrorCode | 'format' }
  | { type: 'inbound_paused'; inFlight: number }
  | { type: 'inbound_resumed' };

export interface IsoLinkOptions {
  codec?: IsoCodec;
  framing?: FramingOptions;
  /** Default timeout of `request`, in ms. Default 5,000. */
  requestTimeoutMs?: number;
  /** Outbound requests awaiting a response at once; one more fails at once with `overloaded`. Default 1,024. */
  maxInFlight?: number;
  /** Inbound requests being handled at once; past it the socket stops reading (TCP back-pressure). Default 1,024. */
  maxInboundInFlight?: number;
  /** Send an 0800 echo after this long without an inbound frame; 0 disables. Default 30,000 ms. */
  echoIdleMs?: number;
  handler?: IsoRequestHandler;
  onEvent?: (event: IsoLinkEvent) => void;
}

export interface RequestOptions {
  timeoutMs?: number;
}
