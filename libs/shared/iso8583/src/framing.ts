import { IsoFormatError } from './errors';

/**
 * Every message travels behind a length header: an unsigned big-endian binary integer counting the bytes that
 * follow it (not itself). Two bytes is the common host-to-host framing (messages up to 65,535 bytes); four
 * bytes is offered for peers that use it.
 */
export interface FramingOptions {
  /** Bytes of the length header: 2 (default) or 4. */
  headerLength?: 2 | 4;
  /** Frames announcing more than this are refused and the stream is dropped. Default 8,192 bytes. */
  maxFrameLength?: number;
}

export const DEFAULT_MAX_FRAME_LENGTH = 8_192;

export interface ResolvedFraming {
  headerLength: 2 | 4;
  maxFrameLength: number;
}

export function resolveFraming(options: FramingOptions = {}): ResolvedFraming {
  const headerLength = options.headerLength ?? 2;
  const ceiling = headerLength === 2 ? 0xffff : 0xffffffff;
  const maxFrameLength = Math.min(options.maxFrameLength ?? DEFAULT_MAX_FRAME_LENGTH, ceiling);
  return { headerLength, maxFrameLength };
}

/** Writes the header into the first `headerLength` bytes of `framed` (reserved by `IsoCodec.encode`). */
export function writeFrameHeader(framed: Buffer, framing: ResolvedFraming): Buffer {
  const length = framed.length - framing.headerLength;
  if (length > framing.maxFrameLength) {
    throw new IsoFormatError(0, 'too_long', `frame of ${length} bytes > max ${framing.maxFrameLength}`);
  }
  if (framing.headerLength === 2) framed.writeUInt16BE(length, 0);
  else framed.writeUInt32BE(length, 0);
  return framed;
}

/** A frame header announced more than the maximum: the stream cannot be trusted past it. */
export class FrameTooLargeError extends Error {
  override readonly name = 'FrameTooLargeError';

  constructor(
    readonly announced: number,
    readonly max: number,
  ) {
    super(`frame of ${announced} bytes announced, max ${max}`);
  }
}

/**
 * Cuts a TCP byte stream into frames, whatever the chunking: a frame split over many chunks, many frames in
 * one chunk, a header split across two. Whole frames inside one chunk are handed out as views of it (no copy);
 * only a frame that spans chunks is assembled. `onFrame(buffer, start, end)` sees the payload without header.
 */
export class FrameDecoder {
  private pending: Buffer | undefined;

  constructor(
    private readonly framing: ResolvedFraming,
    private readonly onFrame: (buffer: Buffer, start: number, end: number) => void,
  ) {}

  /** Feeds one chunk; throws {@link FrameTooLargeError} (and keeps nothing) on an oversized header. */
  push(chunk: Buffer): void {
    let buffer = chunk;
    if (this.pending) {
      buffer = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    const { headerLength, maxFrameLength } = this.framing;
    let at = 0;
    while (buffer.length - at >= headerLength) {
      const length = headerLength === 2 ? buffer.readUInt16BE(at) : buffer.readUInt32BE(at);
      if (length > maxFrameLength) throw new FrameTooLargeError(length, maxFrameLength);
      const end = at + headerLength + length;
      if (end > buffer.length) break;
      this.onFrame(buffer, at + headerLength, end);
      at = end;
    }
    if (at < buffer.length) this.pending = buffer.subarray(at);
  }

  /** Bytes of an incomplete frame held back. */
  get buffered(): number {
    return this.pending?.length ?? 0;
  }
}
