/** Why a message could not be encoded or decoded. */
export type IsoFormatReason =
  | 'truncated'
  | 'bad_mti'
  | 'bad_bitmap'
  | 'not_in_spec'
  | 'bad_length_prefix'
  | 'too_long'
  | 'wrong_length'
  | 'bad_character'
  | 'wrong_value_type'
  | 'trailing_bytes';

/**
 * A malformed message, with the field number (0 for the MTI, 1 for the bitmaps) and the reason. The text
 * never quotes the field's value: it may be a PAN or a PIN block.
 */
export class IsoFormatError extends Error {
  override readonly name = 'IsoFormatError';

  constructor(
    readonly field: number,
    readonly reason: IsoFormatReason,
    detail: string,
  ) {
    super(`ISO 8583 field ${field}: ${reason} (${detail})`);
  }
}

/** Why a request over the link did not get its response. */
export type IsoLinkErrorCode =
  /** No response within the request's timeout. */
  | 'timeout'
  /** `maxInFlight` requests are already waiting: fail fast, the caller stands in or retries. */
  | 'overloaded'
  /** The link has no open connection right now (the client is between reconnects). */
  | 'not_connected'
  /** The connection dropped while the request waited; the peer may or may not have acted on it. */
  | 'connection_lost'
  /** The link was closed by its owner. */
  | 'closed'
  /** A request with the same MTI, STAN and RRN is already waiting. */
  | 'duplicate_request'
  /** The message to send lacks what matching needs (STAN), or is a response. */
  | 'not_a_request';

export class IsoLinkError extends Error {
  override readonly name = 'IsoLinkError';

  constructor(
    readonly code: IsoLinkErrorCode,
    message: string,
  ) {
    super(message);
  }
}
