import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsSafeText, ListQueryDto } from '@cip/gateway/http';
import { DELIVERY_STATUSES, WEBHOOK_SUBSCRIPTION_STATUSES } from '@cip/webhooks/contract';

const LISTED_STATUSES = WEBHOOK_SUBSCRIPTION_STATUSES.filter((s) => s !== 'deleted');

export class WebhookUrlDto {
  @ApiProperty({
    example: 'https://hooks.example.com/card-events',
    description:
      'http(s) url of your listener, publicly reachable: hosts resolving to loopback, private, link-local or ' +
      'cloud metadata addresses are refused. Answer the verification POST by echoing its challenge.',
  })
  @IsSafeText()
  @MaxLength(2048)
  @IsString()
  url: string;
}

export class WebhookSubscriptionListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: LISTED_STATUSES })
  @IsOptional()
  @IsIn(LISTED_STATUSES)
  status?: string;
}

export class DeliveryListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only the deliveries of this Event' })
  @IsOptional()
  @Matches(/^[0-9a-f-]{36}$/, { message: 'eventId must be an Event id (a uuid)' })
  eventId?: string;

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: string;
}

class LastVerificationResponse {
  @ApiProperty() at: string;
  @ApiProperty() verified: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'the response did not echo the challenge' }) reason:
    string | null;
}

export class WebhookSubscriptionResponse {
  @ApiProperty({ example: 'whs-0b6f3c7e-2f4d-4d8a-9a51-3c1f0e6b7a21' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({
    enum: LISTED_STATUSES,
    description:
      'unverified: no deliveries until the handshake succeeds; active: receives every Event; disabled: 410 Gone or failing for 3 days (verify again to re-enable)',
  })
  status: string;
  @ApiProperty({ type: String, nullable: true }) verifiedAt: string | null;
  @ApiProperty({ type: LastVerificationResponse, nullable: true })
  lastVerification: LastVerificationResponse | null;
  @ApiProperty({ type: String, enum: ['gone', 'failing'], nullable: true }) disabledReason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'First failed delivery since the last success' })
  failingSince: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class CreatedWebhookSubscriptionResponse extends WebhookSubscriptionResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'Shown once. Standard Webhooks secret: verify the `v1` signature with any Standard Webhooks library, ' +
      'or the `v1a` Ed25519 signature with the public key.',
  })
  secret: string;
}

class SigningKeyResponse {
  @ApiProperty({ enum: ['ed25519'] }) algorithm: string;
  @ApiProperty({ description: 'Raw 32-byte Ed25519 public key, base64' }) publicKey: string;
  @ApiProperty({
    description: 'The same key as a PEM (SPKI) document, for crypto.verify(null, content, pem, signature)',
    example: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA...\n-----END PUBLIC KEY-----\n',
  })
  pem: string;
  @ApiProperty({ example: 'whk_3f9a1c0d7e2b4a58' }) keyId: string;
  @ApiProperty() createdAt: string;
  @ApiPropertyOptional({ description: 'Previous key during a rotation: it stops signing at this time' })
  retiresAt?: string;
}

export class PublicKeyResponseDto extends SigningKeyResponse {
  @ApiProperty({
    type: [SigningKeyResponse],
    description: 'Every key that signs deliveries now (two during a rotation: one v1a signature per key)',
  })
  keys: SigningKeyResponse[];
}

class DeliveryAttemptResponse {
  @ApiProperty() attempt: number;
  @ApiProperty() at: string;
  @ApiProperty({ type: 'integer', nullable: true }) statusCode: number | null;
  @ApiProperty() latencyMs: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
}

export class DeliveryResponse {
  @ApiProperty({ example: 'whd-5d2c7a8e-1b3f-5c4d-9e6a-7f8b9c0d1e2f' }) id: string;
  @ApiProperty() subscriptionId: string;
  @ApiProperty() eventId: string;
  @ApiProperty() eventName: string;
  @ApiProperty({ type: String, nullable: true }) userId: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ description: 'true for a redelivery asked through POST /v1/events/{eventId}/redeliver' })
  redelivery: boolean;
  @ApiProperty({
    enum: ['express', 'standard'],
    description: 'express: 3-D Secure Events, never queued behind others',
  })
  lane: string;
  @ApiProperty({ type: [DeliveryAttemptResponse] }) attempts: DeliveryAttemptResponse[];
  @ApiPropertyOptional({
    description: 'Cancelled deliveries: why (the subscription was deleted or disabled)',
    example: 'the subscription was disabled (failing)',
  })
  cancelReason?: string;
  @ApiProperty({ type: String, nullable: true }) nextAttemptAt: string | null;
  @ApiProperty() eventCreatedAt: string;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

class SigningJwk {
  @ApiProperty({ enum: ['OKP'] }) kty: string;
  @ApiProperty({ enum: ['Ed25519'] }) crv: string;
  @ApiProperty({ description: 'The raw public key, base64url' }) x: string;
  @ApiProperty({ description: 'The keyId of the public-key endpoint', example: 'whk_3f9a1c0d7e2b4a58' })
  kid: string;
  @ApiProperty({ enum: ['EdDSA'] }) alg: string;
  @ApiProperty({ enum: ['sig'] }) use: string;
}

export class SigningKeySetResponse {
  @ApiProperty({ type: [SigningJwk], description: 'Every key that signs deliveries now' })
  keys: SigningJwk[];
}

export class RedeliveryResponse {
  @ApiProperty({ example: '0b6f3c7e-2f4d-4d8a-9a51-3c1f0e6b7a21' }) eventId: string;
  @ApiProperty({ type: [DeliveryResponse], description: 'One new delivery per verified subscription' })
  deliveries: DeliveryResponse[];
}
