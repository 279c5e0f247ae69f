import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { toOpenApi31 } from './openapi-3-1';
import { documentPipeline } from './pipeline-responses';
import { publicSchemaName } from './schema-names';

/** Every tag an operation may carry, with what it groups (a tag used but missing here fails the lint test). */
const TAGS: Record<string, string> = {
  Users: 'The people who hold cards: created by you, activated by a verified KYC.',
  KYC: 'Identity verification: hosted by the provider (the user follows `access.url`) or imported.',
  Wallets: 'USDC wallets, one per activated user: balances, deposit address, withdrawals.',
  Transactions: 'Wallet movements: deposits, withdrawals, authorization holds, refunds and fees.',
  Cards:
    'Virtual cards of your users: issued from the card vault, frozen, unfrozen and revoked; never a PAN or CVV.',
  Tokenization:
    "Digital-wallet tokens of your cards: Apple Pay and Google Pay push provisioning, activation, and the card's tokens, which follow the card.",
  Authorizations:
    'Card payments the card network asked about (ISO 8583): confirmed with a hold on the wallet or rejected with a reason, then cleared, reversed or expired.',
  'Authorization decisioning':
    "Your own endpoint approves or declines card payments in real time, after the platform's checks and before any money is held (signed requests, a deadline, a fallback).",
  '3D Secure':
    'Out-of-band 3-D Secure challenges of your cards (`cardAuthentication.created`, on the webhook express lane): accept or reject each before `expiresAt`; unanswered ones fail closed.',
  Webhooks: 'Subscriptions that receive every Event, signed (Standard Webhooks), with their delivery log.',
  Events: 'The record of every occurrence (`user.created`, ...), as sent to webhooks.',
  Simulations: 'Sandbox only: play the provider, the chain or the network.',
};

const DESCRIPTION =
  'Users, KYC, USDC wallets, cards, authorizations and webhooks for distributors. Every request carries ' +
  '`x-api-key` (sandbox keys `sk_sandbox_…`, production keys `sk_live_…`); POST and PUT accept ' +
  '`x-idempotency-key` (at most 64 characters, outcome kept 24 hours). Errors share one body: ' +
  '`{"error": {"code", "message", "details"}, "requestId"}`, and each operation lists the codes it can ' +
  'return. Generate a typed client from this document, e.g. `npx openapi-typescript <url>/v1/openapi.json`.';

/**
 * The OpenAPI 3.1 document of the API: built by @nestjs/swagger from the controllers' decorators, then
 * completed with what the gateway's pipeline does to every request (`documentPipeline`) and converted to
 * 3.1 (`toOpenApi31`). Lint (redocly, spectral), a generated client and the e2e suite check it.
 */
export function buildOpenApiDocument(
  app: INestApplication,
  options: {
    publicBaseUrl?: string;
    /** Where this process is reached locally (HOST and PORT): the default of `{baseUrl}` without a public one. */
    localBaseUrl?: string;
  } = {},
): OpenAPIObject {
  const localBaseUrl = options.localBaseUrl ?? 'http://localhost:3000';
  const builder = new DocumentBuilder()
    .setTitle('Card-issuing platform API')
    .setVersion('v1')
    .setDescription(DESCRIPTION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Without PUBLIC_BASE_URL the platform does not know its public address: clients fill it in.
    .addServer(
      options.publicBaseUrl ?? '{baseUrl}',
      'This platform',
      options.publicBaseUrl
        ? undefined
        : { baseUrl: { default: localBaseUrl, description: 'Where the platform is reached' } },
    )
    .addApiKey(
      { type: 'apiKey', name: 'x-api-key', in: 'header', description: 'Your sandbox or production API key' },
      'apiKey',
    )
    .addSecurityRequirements('apiKey');
  const document = SwaggerModule.createDocument(app, builder.build(), {
    // Operations name themselves (`@ApiOperation({ operationId: 'createUser' })`); a method name is the
    // fallback, and lint refuses the duplicates it would make.
    operationIdFactory: (_controller, method) => method,
  });
  document.info.contact = {
    name: 'Platform operators',
    url: options.publicBaseUrl ?? localBaseUrl,
  };
  renameSchemas(document);
  documentPipeline(document);
  toOpenApi31(document);
  const used = new Set(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation as { tags?: string[] }).tags ?? []),
    ),
  );
  document.tags = [...used].sort().map((name) => ({ name, description: TAGS[name] }));
  return document;
}

/** Schemas are named for clients (`User`), not after the classes that declare them (`UserResponse`). */
export function renameSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const renamed: Record<string, (typeof schemas)[string]> = {};
  const names = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const publicName = publicSchemaName(name);
    if (renamed[publicName]) throw new Error(`Two schemas would be named ${publicName}: rename ${name}`);
    renamed[publicName] = schema;
    names.set(`#/components/schemas/${name}`, `#/components/schemas/${publicName}`);
  }
  if (document.components) document.components.schemas = renamed;
  const rewrite = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(rewrite);
    if (typeof value !== 'object' || value === null) return;
    const node = value as Record<string, unknown>;
    if (typeof node.$ref === 'string') node.$ref = names.get(node.$ref) ?? node.$ref;
    Object.values(node).forEach(rewrite);
  };
  rewrite(document.paths);
  rewrite(document.components);
}
