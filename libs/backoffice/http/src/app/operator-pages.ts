import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { sendError } from '@cip/gateway/http';

export const OPERATOR_API_PREFIX = '/operator/';

/**
 * The dashboard's content security policy: scripts and everything else from this origin only, no inline
 * script, no framing. Inline styles are allowed: the dashboard's component library (MUI, through emotion)
 * injects its styles at run time.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Security headers on every answer; the operator API's are never cached (they carry staff data). */
export function installSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (request.url.startsWith(OPERATOR_API_PREFIX) && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
  });
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard was not built</h1>
<p>The operator API runs at <a href="/operator/v1/docs">/operator/v1/docs</a>, but the dashboard's files are
missing. Build them with <code>npm run build</code> (they go to <code>dist/apps/dashboard-web/</code>) and restart.</p>
</main></body></html>`;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Every file under `dir`, by its URL path (`/assets/index-3f2a.js`). */
function filesUnder(dir: string, root = dir, found = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, root, found);
    else found.set(`/${relative(root, path).split(sep).join('/')}`, path);
  }
  return found;
}

/**
 * The dashboard's static files at `/`, with `index.html` for its client routes (any GET outside the operator
 * API that is not a file), and a plain page saying so when the dashboard was not built. Unknown operator API
 * paths stay `404 not_found` in the API's error shape.
 *
 * Hand-written rather than @fastify/static: that plugin's `content-disposition` dependency is an ES module
 * the test runner (Jest, CommonJS) cannot load, and the build is a few hashed files known at start, so a
 * map of them (read once; no path from the request ever reaches the file system) is all it takes.
 * Hashed assets (`/assets/`) are cached for a year, `index.html` revalidated.
 */
export function serveDashboard(fastify: FastifyInstance, dashboardDir: string): void {
  const built = existsSync(join(dashboardDir, 'index.html'));
  const files = built ? filesUnder(dashboardDir) : new Map<string, string>();
  const contents = new Map([...files].map(([url, path]) => [url, readFileSync(path)]));
  const index = contents.get('/index.html') ?? null;
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (path.startsWith(OPERATOR_API_PREFIX))
      return sendError(request, reply, 'not_found', 'No such resource or route');
    const file = contents.get(path);
    if (file && path !== '/index.html') {
      return reply
        .header(
          'cache-control',
          path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        )
        .type(CONTENT_TYPES[extname(path)] ?? 'application/octet-stream')
        .send(file);
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(index ?? NOT_BUILT);
  };
  fastify.get('/', page);
  fastify.get('/*', page);
}
