import type { FastifyInstance } from 'fastify';
import { serveSwaggerDocs } from '@cip/gateway/http';

/** The operator API's document at /operator/v1/openapi.json and Swagger UI at /operator/v1/docs, offline. */
export function serveOperatorDocs(fastify: FastifyInstance, document: object): void {
  serveSwaggerDocs(fastify, document, {
    title: 'Card-issuing platform operator API',
    documentPath: '/operator/v1/openapi.json',
    docsPath: '/operator/v1/docs',
  });
}
