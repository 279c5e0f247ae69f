import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = '/operator/v1/docs';
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'] as const;
const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Card-issuing platform operator API</title>
  <link rel="stylesheet" href="${BASE}/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="${BASE}/swagger-ui-bundle.js"></script>
  <script src="${BASE}/swagger-ui-standalone-preset.js"></script>
  <script src="${BASE}/init.js"></script>
</body>
</html>`;

// In a file of its own: the dashboard's content security policy allows no inline script.
const INIT = `window.ui = SwaggerUIBundle({ url: '/operator/v1/openapi.json', dom_id: '#docs', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;

/** The operator API's document at /operator/v1/openapi.json and Swagger UI at /operator/v1/docs, offline. */
export function serveOperatorDocs(fastify: FastifyInstance, document: object): void {
  // The package's path helper alone: its index also evaluates the whole browser bundle in Node (about 180 ms
  // of start-up and several MiB of heap) for nothing, since the assets are only served as files.
  const dist: string = require('swagger-ui-dist/absolute-path.js')();
  const assets = new Map<string, Buffer | string>(
    ASSETS.map((name) => [name, readFileSync(join(dist, name))]),
  );
  assets.set('init.js', INIT);
  const body = JSON.stringify(document);
  fastify.get('/operator/v1/openapi.json', (_, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
  fastify.get(BASE, (_, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  for (const [name, content] of assets) {
    fastify.get(`${BASE}/${name}`, (_, reply) =>
      reply
        .type(TYPES[name.split('.').pop() ?? 'js'])
        .header('cache-control', 'public, max-age=86400')
        .send(content),
    );
  }
}
