import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { resourceIdPattern } from '@cip/gateway/http';
import { CARD_AUTHENTICATION_PURPOSES, CARD_AUTHENTICATION_STATUSES } from '@cip/three-ds/contract';

export class CardAuthenticationAnswerDto {
  @ApiProperty({
    example: 'tds-5b0e6a1c-2f7d-4c3b-9a8e-1d2c3b4a5f60',
    description: 'From cardAuthentication.created',
  })
  @IsString()
  @Matches(resourceIdPattern('tds'), { message: '$property must be a card authentication id (tds-<uuid>)' })
  cardAuthenticationId: string;
}

export class CardAuthenticationResultResponse {
  @ApiProperty({
    enum: ['Y', 'N'],
    description: 'EMV transStatus sent to the 3DS server: Y authenticated, N not',
  })
  transStatus: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'EMV transStatusReason of a refusal: 01 rejected by you, 14 timed out (no answer by expiresAt)',
  })
  transStatusReason: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the directory server acknowledged the result (its RRes); null until then',
  })
  notifiedAt: string | null;
}

export class CardAuthenticationResponse {
  @ApiProperty({ example: 'tds-5b0e6a1c-2f7d-4c3b-9a8e-1d2c3b4a5f60' }) id: string;
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) userId: string;
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' }) cardId: string;
  @ApiProperty({ example: 'wlt-0b6f1c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b' }) walletId: string;
  @ApiProperty({ type: String, nullable: true, description: "The wallet's deposit address" })
  walletAddress: string | null;
  @ApiProperty({
    enum: CARD_AUTHENTICATION_PURPOSES,
    description: 'payment, or cardVerification (no amount: merchantAmount and merchantCurrency are null)',
  })
  purpose: string;
  @ApiProperty({ example: 'SHOP EXAMPLE' }) merchantName: string;
  @ApiProperty({ example: '424242******4242' }) maskedPan: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '42.50',
    description: 'Decimal string; null for a card verification',
  })
  merchantAmount: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'EUR',
    description: 'ISO 4217; null for a card verification',
  })
  merchantCurrency: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The merchant app's URL to deep-link back to (app channel), when the requestor sent one",
  })
  threedsRequestorAppUrl: string | null;
  @ApiProperty({
    enum: CARD_AUTHENTICATION_STATUSES,
    description: 'pending until you answer; accepted, rejected, or expired (no answer by expiresAt: refused)',
  })
  status: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Answers after this instant are refused (409 card_authentication_expired)',
  })
  expiresAt: string;
  @ApiProperty({
    type: CardAuthenticationResultResponse,
    nullable: true,
    description: 'Once decided: what the 3DS server was told',
  })
  result: CardAuthenticationResultResponse | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}
