import { FrameDecoder, FrameTooLargeError, resolveFraming, writeFrameHeader } from './framing';

function framed(payload: string, headerLength: 2 | 4 = 2): Buffer {
  const buffer = Buffer.alloc(headerLength + payload.length);
  buffer.write(payload, headerLength, 'latin1');
  return writeFrameHeader(buffer, resolveFraming({ headerLength }));
}

function collector(options = {}) {
  const frames: string[] = [];
  const decoder = new FrameDecoder(resolveFraming(options), (buffer, start, end) =>
    frames.push(buffer.toString('latin1', start, end)),
  );
  return { frames, decoder };
}

describe('FrameDecoder', () => {
  const stream = Buffer.concat([
    framed('first message'),
    framed('second'),
    framed(''),
    framed('x'.repeat(300)),
  ]);
  const expected = ['first message', 'second', '', 'x'.repeat(300)];

  it('writes a 2-byte big-endian length that excludes the header', () => {
    expect(framed('x'.repeat(300)).subarray(0, 2)).toEqual(Buffer.from([0x01, 0x2c]));
  });

  it('cuts coalesced frames out of one chunk', () => {
    const { frames, decoder } = collector();
    decoder.push(stream);
    expect(frames).toEqual(expected);
    expect(decoder.buffered).toBe(0);
  });

  it('reassembles frames delivered one byte at a time (headers split too)', () => {
    const { frames, decoder } = collector();
    for (let i = 0; i < stream.length; i++) decoder.push(stream.subarray(i, i + 1));
    expect(frames).toEqual(expected);
  });

  it.each([1, 3, 7, 16, 100])('reassembles frames cut into %i-byte chunks', (size) => {
    const { frames, decoder } = collector();
    for (let i = 0; i < stream.length; i += size) decoder.push(stream.subarray(i, i + size));
    expect(frames).toEqual(expected);
  });

  it('holds back an incomplete frame until the rest arrives', () => {
    const { frames, decoder } = collector();
    const one = framed('abcdef');
    decoder.push(one.subarray(0, 5));
    expect(frames).toEqual([]);
    expect(decoder.buffered).toBe(5);
    decoder.push(one.subarray(5));
    expect(frames).toEqual(['abcdef']);
  });

  it('reads a 4-byte header when configured', () => {
    const { frames, decoder } = collector({ headerLength: 4 });
    decoder.push(Buffer.concat([framed('four', 4), framed('byte header', 4)]));
    expect(frames).toEqual(['four', 'byte header']);
  });

  it('refuses a header announcing more than the maximum frame size', () => {
    const { frames, decoder } = collector({ maxFrameLength: 10 });
    expect(() => decoder.push(framed('x'.repeat(11)))).toThrow(FrameTooLargeError);
    expect(frames).toEqual([]);
  });

  it('refuses to write a frame over the maximum', () => {
    expect(() => writeFrameHeader(Buffer.alloc(2 + 11), resolveFraming({ maxFrameLength: 10 }))).toThrow(
      /too_long/,
    );
  });
});
