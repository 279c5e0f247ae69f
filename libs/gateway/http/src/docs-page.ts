import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'] as const;
const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'application/javascript; charset=utf-8',
};

export interface SwaggerDocsOptions {
  /** The page's title. */
  title: string;
  /** Where the document is served (`/v1/openapi.json`). */
  documentPath: string;
  /** Where the page is served (`/v1/docs`); its assets are served under it. */
  docsPath: string;
}

function page({ title, docsPath }: SwaggerDocsOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <link rel="stylesheet" href="${docsPath}/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="${docsPath}/swagger-ui-bundle.js"></script>
  <script src="${docsPath}/swagger-ui-standalone-preset.js"></script>
  <script src="${docsPath}/init.js"></script>
</body>
</html>`;
}

// In a file of its own: the dashboard's content security policy allows no inline script.
function init({ documentPath }: SwaggerDocsOptions): string {
  return `window.ui = SwaggerUIBundle({ url: '${documentPath}', dom_id: '#docs', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;
}

/**
 * Serves an OpenAPI document and a readable docs page (Swagger UI from the swagger-ui-dist package, served
 * from memory: no CDN, works offline and behind strict firewalls). Used by /v1 and the operator API.
 */
export function serveSwaggerDocs(fastify: FastifyInstance, document: object, options: SwaggerDocsOptions): void {
  // The package's path helper alone: its index also evaluates the whole browser bundle in Node (about 180 ms
  // of start-up and several MiB of heap) for nothing, since the assets are only served as files.
  const dist: string = require('swagger-ui-dist/absolute-path.js')();
  const assets = new Map<string, Buffer | string>(
    ASSETS.map((name) => [name, readFileSync(join(dist, name))]),
  );
  assets.set('init.js', init(options));
  const html = page(options);
  const body = JSON.stringify(document);
  fastify.get(options.documentPath, (_, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
  fastify.get(options.docsPath, (_, reply) => reply.type('text/html; charset=utf-8').send(html));
  for (const [name, content] of assets) {
    fastify.get(`${options.docsPath}/${name}`, (_, reply) =>
      reply
        .type(TYPES[name.split('.').pop() ?? 'js'])
        .header('cache-control', 'public, max-age=86400')
        .send(content),
    );
  }
}

/** The API's document at /v1/openapi.json and its docs page at /v1/docs. */
export function serveApiDocs(fastify: FastifyInstance, document: object): void {
  serveSwaggerDocs(fastify, document, {
    title: 'Card-issuing platform API',
    documentPath: '/v1/openapi.json',
    docsPath: '/v1/docs',
  });
}
