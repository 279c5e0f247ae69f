import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import {
  AUTHORIZATION_DECISIONS,
  AUTHORIZATION_STATUSES,
  AUTHORIZATION_TYPES,
  DECIDED_BY,
  DECLINE_DETAILS,
  DECLINE_REASON_CODES,
} from '@cip/authorizations/contract';
import { ListQueryDto, resourceIdPattern } from '@cip/gateway/http';

export class AuthorizationListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  @IsOptional()
  @Matches(resourceIdPattern('crd'), { message: 'cardId must be a card id (crd-<uuid>)' })
  cardId?: string;

  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(resourceIdPattern('usr'), { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;

  @ApiPropertyOptional({ enum: AUTHORIZATION_STATUSES })
  @IsOptional()
  @IsIn(AUTHORIZATION_STATUSES)
  status?: (typeof AUTHORIZATION_STATUSES)[number];
}

export class MerchantResponse {
  @ApiProperty({ example: 'CORNER CAFE' }) name: string;
  @ApiProperty({ example: 'PARIS' }) city: string;
  @ApiProperty({ example: 'FR', description: 'ISO 3166 alpha-2' }) country: string;
  @ApiProperty({ example: '5812', description: 'ISO 18245 merchant category code' }) mcc: string;
  @ApiPropertyOptional({ example: '000000000001234', description: "The acquirer's merchant id, when sent" })
  mid?: string;
}

export class FeeResponse {
  @ApiPropertyOptional({
    description: 'FX fee, 6 implied decimals (value times 1,000,000 of USD)',
    example: 216000,
  })
  fx?: number;
  @ApiPropertyOptional({ description: 'ATM fee, 6 implied decimals', example: 2500000 }) atm?: number;
  @ApiPropertyOptional({ description: 'Authorization fee, 6 implied decimals', example: 100000 })
  auth?: number;
}

/** The 3-D Secure authentication an e-commerce payment carried (additive; absent when it carried none). */
export class AuthorizationThreeDsResponse {
  @ApiProperty({
    example: '05',
    description: 'The ECI of the authentication: 05 authenticated, 06 attempted',
  })
  eci: string;
  @ApiProperty({
    description:
      'Whether the issuer verified the authentication value (CAVV): issued by the ACS for this card, amount, currency and merchant, unused and at most 30 days old. A value that does not verify declines the payment (declineReasonCode other)',
  })
  verified: boolean;
}

export class AuthorizationResponse {
  @ApiProperty({ example: 'aut-0b9f5a2e-6a3c-8f0e-9d55-0c6b1f1d2a10' }) id: string;
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' }) cardId: string;
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) userId: string;
  @ApiProperty({ example: 'wlt-5d1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) walletId: string;
  @ApiProperty({ enum: AUTHORIZATION_TYPES, description: 'payment, or refund (a credit to the wallet)' })
  type: string;
  @ApiProperty({
    enum: AUTHORIZATION_STATUSES,
    description:
      'confirmed (funds held), rejected, partially_cleared, cleared (final), reversed (hold released), ' +
      "expired (the uncleared hold lapsed after the program's window, 7 days by default)",
  })
  status: string;
  @ApiProperty({ enum: AUTHORIZATION_DECISIONS, description: 'The answer given to the card network' })
  decision: string;
  @ApiPropertyOptional({
    enum: DECLINE_REASON_CODES,
    description:
      'Rejected only. notActive: card not active, blocked or expired, or user not active; failedControl: ' +
      'spending control or MCC restriction; insufficientFund: funds; other: wrong CVV2/PIN and anything else',
  })
  declineReasonCode?: string;
  @ApiPropertyOptional({
    enum: DECLINE_DETAILS,
    description:
      "Rejected only, when the decline has a finer cause than declineReasonCode (which keeps the spec's four " +
      'values). currency_not_supported: declined other because merchantCurrency is not an ISO 4217 currency ' +
      'or the program has no fx rate for it (set one with the program settings). Also in the ' +
      'cardAuthorization.rejected Event',
  })
  declineDetail?: string;
  @ApiProperty({ example: 'CORNER CAFE' }) merchantName: string;
  @ApiProperty({ example: '5812' }) merchantMcc: string;
  @ApiProperty({ type: MerchantResponse }) merchant: MerchantResponse;
  @ApiProperty({ description: 'USD units (1 USD settles 1 USDC) authorized, without fees', example: 10.8 })
  amount: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ description: 'The original amount, a decimal string in merchantCurrency', example: '10.00' })
  merchantAmount: string;
  @ApiProperty({ example: 'EUR', description: 'ISO 4217' }) merchantCurrency: string;
  @ApiProperty({ type: FeeResponse }) fee: FeeResponse;
  @ApiPropertyOptional({ description: 'YYYY-MM-DDTHH:mm:ss.sssZ; absent on a force-posted clearing' })
  decidedAt?: string;
  @ApiProperty({ description: 'USD units cleared so far', example: 0 }) clearedAmount: number;
  @ApiProperty({ description: 'USD units released by reversals', example: 0 }) reversedAmount: number;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'When an uncleared hold lapses',
  })
  expiresAt: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The payment a refund gives back, when named' })
  originalAuthorizationId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['stand_in', 'offline', null],
    description: 'stand_in or offline: the network approved it without asking (an advice); null otherwise',
  })
  advice: string | null;
  @ApiPropertyOptional({
    enum: DECIDED_BY,
    description:
      'Who decided: platform (its own checks alone), distributor (your real-time decisioning endpoint ' +
      'answered), distributorTimeout (no usable answer in time: your onTimeout applied)',
  })
  decidedBy?: string;
  @ApiPropertyOptional({
    type: AuthorizationThreeDsResponse,
    description:
      'An e-commerce payment that carried a 3-D Secure authentication value (CAVV / AAV): its ECI and whether it verified. Absent when it carried none',
  })
  threeDs?: AuthorizationThreeDsResponse;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}
