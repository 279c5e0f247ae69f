import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiError, ApiErrors } from '@cip/gateway/http';
import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import {
  toSigningKeySet,
  WEBHOOK_SIGNING_KEYS_API,
  WebhookSigningKeysApi,
  type SigningKeySet,
} from '@cip/webhooks/contract';
import { SigningKeySetResponse } from './webhooks.dto';

/** Where receivers fetch the keys without an API key (a well-known URL, RFC 8615). */
export const SIGNING_KEYS_PATH = '.well-known/webhook-signing-keys';

function environmentOf(value: string): Environment {
  if ((ENVIRONMENTS as readonly string[]).includes(value)) return value as Environment;
  throw new ApiError('not_found', `No signing keys for environment "${value}": use sandbox or production`);
}

const ENVIRONMENT_PARAM = ApiParam({ name: 'environment', enum: ENVIRONMENTS });

/**
 * The public webhook signing keys, unauthenticated: a receiver verifies the `v1a` signature with one
 * `crypto.verify` call on the PEM, or selects a key from the JWKS with any JOSE library, without holding an
 * API key (keys are public; one ring per environment signs every distributor's deliveries).
 */
@ApiTags('Webhooks')
@Controller(SIGNING_KEYS_PATH)
export class WebhookSigningKeysController {
  constructor(@Inject(WEBHOOK_SIGNING_KEYS_API) private readonly keys: WebhookSigningKeysApi) {}

  @Get(':environment/jwks.json')
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getWebhookSigningKeySet',
    summary: 'The signing keys as a JSON Web Key Set (no API key)',
    description:
      'Ed25519 keys (RFC 8037); two during a rotation, as deliveries then carry one v1a signature per key.',
  })
  @ENVIRONMENT_PARAM
  @ApiResponse({ status: 200, type: SigningKeySetResponse })
  @ApiErrors('not_found')
  async jwks(@Param('environment') environment: string): Promise<SigningKeySet> {
    return toSigningKeySet(await this.keys.signingKeys(environmentOf(environment)));
  }

  @Get(':environment/public-key.pem')
  @Header('content-type', 'application/x-pem-file')
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getWebhookSigningKeyPem',
    summary: 'The current signing key as PEM (no API key)',
    description: 'SPKI PEM of the current key: crypto.verify(null, content, pem, signature) takes it as is.',
  })
  @ENVIRONMENT_PARAM
  @ApiProduces('application/x-pem-file')
  @ApiResponse({
    status: 200,
    description: 'The PEM document',
    content: { 'application/x-pem-file': { schema: { type: 'string' } } },
  })
  @ApiErrors('not_found')
  async pem(@Param('environment') environment: string): Promise<string> {
    return (await this.keys.signingKeys(environmentOf(environment))).pem;
  }
}
