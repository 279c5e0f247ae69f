import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'] as const;
const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Card-issuing platform API</title>
  <link rel="stylesheet" href="/v1/docs/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/v1/docs/swagger-ui-bundle.js"></script>
  <script src="/v1/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#docs', deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  </script>
</body>
</html>`;

/**
 * Serves the OpenAPI document at /v1/openapi.json and a readable docs page at /v1/docs (Swagger UI from the
 * swagger-ui-dist package, served from memory: no CDN, works offline and behind strict firewalls).
 */
export function serveApiDocs(fastify: FastifyInstance, document: object): void {
  // The package's path helper alone: its index also evaluates the whole browser bundle in Node (about 180 ms
  // of start-up and several MiB of heap) for nothing, since the assets are only served as files.
  const dist: string = require('swagger-ui-dist/absolute-path.js')();
  const assets = new Map(ASSETS.map((name) => [name, readFileSync(join(dist, name))]));
  const body = JSON.stringify(document);
  fastify.get('/v1/openapi.json', (_, reply) => reply.type('application/json; charset=utf-8').send(body));
  fastify.get('/v1/docs', (_, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  for (const [name, content] of assets) {
    fastify.get(`/v1/docs/${name}`, (_, reply) =>
      reply
        .type(TYPES[name.split('.').pop() ?? 'js'])
        .header('cache-control', 'public, max-age=86400')
        .send(content),
    );
  }
}
