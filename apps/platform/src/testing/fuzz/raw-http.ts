import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Announced length when it must differ from the body's (a truncated or overlong body). */
  contentLength?: number;
}

export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseResponse(received: Buffer): RawResponse {
  const headerEnd = received.indexOf('\r\n\r\n');
  if (received.length === 0 || headerEnd < 0) return { status: 0, headers: {}, body: received.toString() };
  const [statusLine, ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = received.subarray(headerEnd + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

/**
 * Sends one request over its own connection, byte for byte as given (an HTTP client would refuse or fix
 * most of what the fuzz test sends: raw bytes in headers, a Content-Length that lies), and reads the answer
 * until the server closes. Rejects when nothing comes back within `withinMs`: a hang is a failure.
 */
export function sendRaw(port: number, request: RawRequest, withinMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${withinMs} ms`));
    }, withinMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    const body = request.body ?? Buffer.alloc(0);
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      connection: 'close',
      ...request.headers,
    };
    if (request.body !== undefined || request.contentLength !== undefined) {
      headers['content-length'] = String(request.contentLength ?? body.length);
    }
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      Buffer.concat([
        Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n${head}\r\n`, 'latin1'),
        body,
      ]),
    );
  });
}
