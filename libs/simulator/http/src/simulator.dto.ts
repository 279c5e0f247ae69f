import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  AUTHORIZATION_DECISIONS,
  AUTHORIZATION_STATUSES,
  AUTHORIZATION_TYPES,
  DECIDED_BY,
  DECLINE_DETAILS,
  DECLINE_REASON_CODES,
} from '@cip/authorizations/contract';
import { IsSafeText, MONEY_DECIMALS_RULE, MoneyAmount, resourceIdPattern } from '@cip/gateway/http';
import { SIMULATED_ENTRY_MODES } from '@cip/simulator/contract';
import { SIMULATED_CURRENCIES } from '@cip/simulator/domain';

const CARD_ID = resourceIdPattern('crd');
const AUTHORIZATION_ID = resourceIdPattern('aut');
const AMOUNT_DESCRIPTION =
  'In units of `currency`, a positive JSON number with at most its ISO 4217 decimals (2 for USD, 0 for JPY, 3 ' +
  `for KWD); otherwise 400 validation_error. ${MONEY_DECIMALS_RULE}`;
const CURRENCY_DESCRIPTION = `ISO 4217 code of the merchant's currency; USD when absent. One of ${SIMULATED_CURRENCIES.join(', ')}`;

export class SimulatedMerchantDto {
  @ApiProperty({ example: 'Corner Cafe', maxLength: 25, description: 'DE-043 positions 1-25' })
  @IsSafeText()
  @MaxLength(25)
  @Matches(/^[\x20-\x7e]+$/, { message: 'merchant.name must be printable ASCII' })
  @IsString()
  name: string;

  @ApiProperty({ example: 'Paris', maxLength: 13, description: 'DE-043 positions 26-38' })
  @IsSafeText()
  @MaxLength(13)
  @Matches(/^[\x20-\x7e]+$/, { message: 'merchant.city must be printable ASCII' })
  @IsString()
  city: string;

  @ApiProperty({ example: 'FR', description: 'ISO 3166-1 alpha-2' })
  @Matches(/^[A-Z]{2}$/, { message: 'merchant.country must be an ISO 3166-1 alpha-2 code' })
  @IsString()
  country: string;

  @ApiProperty({ example: '5814', description: 'ISO 18245 merchant category code (DE-018)' })
  @Matches(/^\d{4}$/, { message: 'merchant.mcc must be four digits' })
  @IsString()
  mcc: string;

  @ApiPropertyOptional({ example: 'MERCH000000042', maxLength: 15, description: 'Card acceptor id (DE-042)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9 ]{1,15}$/, { message: 'merchant.mid must be 1 to 15 letters, digits or spaces' })
  @IsString()
  mid?: string;

  @ApiPropertyOptional({ example: 'TERM0001', maxLength: 8, description: 'Terminal id (DE-041)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9]{1,8}$/, { message: 'merchant.terminalId must be 1 to 8 letters or digits' })
  @IsString()
  terminalId?: string;
}

class AmountAndMerchantDto {
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  @Matches(CARD_ID, { message: 'cardId must be a card id (crd-<uuid>)' })
  @IsString()
  cardId: string;

  @ApiProperty({ example: 12.5, description: AMOUNT_DESCRIPTION })
  @MoneyAmount({ currencyField: 'currency', defaultCurrency: 'USD' })
  amount: number;

  @ApiPropertyOptional({ example: 'EUR', enum: SIMULATED_CURRENCIES, description: CURRENCY_DESCRIPTION })
  @IsOptional()
  @IsIn(SIMULATED_CURRENCIES)
  @IsString()
  currency?: string;

  @ApiProperty({ type: SimulatedMerchantDto })
  @ValidateNested()
  @Type(() => SimulatedMerchantDto)
  @IsObject()
  @IsDefined()
  merchant: SimulatedMerchantDto;
}

export class SimulatedThreeDsAuthenticationDto {
  @ApiProperty({
    example: 'q83vEjRWeJCrze8SNFZ4kKvN7xI=',
    description:
      'The authentication value (CAVV / AAV) of the 3-D Secure Y: 28 base64 characters (DE-048.43)',
  })
  @Matches(/^[A-Za-z0-9+/]{27}=$/, { message: 'threeDs.authenticationValue must be 28 base64 characters' })
  @IsString()
  authenticationValue: string;

  @ApiPropertyOptional({
    example: '05',
    enum: ['05', '06', '07'],
    description: 'The ECI (DE-048.42); 05 when absent',
  })
  @IsOptional()
  @IsIn(['05', '06', '07'])
  @IsString()
  eci?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '2f0a3c1e-9b4d-4c7a-8e5f-1a2b3c4d5e6f',
    description: "The directory server's transaction id; accepted, not sent (no subelement for it yet)",
  })
  @IsOptional()
  @IsUUID()
  dsTransID?: string;
}

export class SimulateAuthorizationDto extends AmountAndMerchantDto {
  @ApiPropertyOptional({
    example: '123',
    description: "The CVV2 the cardholder types (DE-126); the card's own when absent. Never stored or logged",
  })
  @IsOptional()
  @Matches(/^\d{3,4}$/, { message: 'cvv2 must be 3 or 4 digits' })
  @IsString()
  cvv2?: string;

  @ApiPropertyOptional({
    example: '1234',
    description: 'A PIN entered at the terminal, sent as an encrypted ISO 9564 format 0 PIN block (DE-052)',
  })
  @IsOptional()
  @Matches(/^\d{4}$/, { message: 'pin must be 4 digits' })
  @IsString()
  pin?: string;

  @ApiPropertyOptional({
    enum: SIMULATED_ENTRY_MODES,
    description: 'How the card is read (DE-022); ecommerce by default',
  })
  @IsOptional()
  @IsIn(SIMULATED_ENTRY_MODES)
  entryMode?: (typeof SIMULATED_ENTRY_MODES)[number];

  @ApiPropertyOptional({
    type: SimulatedThreeDsAuthenticationDto,
    description:
      "The 3-D Secure authentication before this e-commerce payment (the ACS's Y), sent in DE-048: the issuer verifies it against the card, amount, currency and merchant, once; one that does not verify is declined (declineReasonCode other). Sent instead of cardAuthenticationId's when both are given",
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => SimulatedThreeDsAuthenticationDto)
  @IsObject()
  threeDs?: SimulatedThreeDsAuthenticationDto;

  @ApiPropertyOptional({
    example: 'tds-7c9e6679-7425-40de-944b-e07fc1f90ae7',
    description:
      'A challenge of POST /v1/simulate/3ds whose RReq was Y: the sandbox 3DS server sends its authentication value and ECI (409 invalid_state_transition while it has none). Ignored when threeDs is given',
  })
  @IsOptional()
  @Matches(resourceIdPattern('tds'), {
    message: 'cardAuthenticationId must be a card authentication id (tds-<uuid>)',
  })
  @IsString()
  cardAuthenticationId?: string;
}

export class SimulateRefundDto extends AmountAndMerchantDto {
  @ApiPropertyOptional({
    example: 'aut-0b8e9a3c-2f1d-4e5a-9c7b-6d5e4f3a2b1c',
    description:
      "The card's approved payment the refund gives money back for (sent in DE-048 subelement 63, the purchase's RRN); the refund's `originalAuthorizationId`. Absent: a refund without an original authorization",
  })
  @IsOptional()
  @Matches(AUTHORIZATION_ID, { message: 'authorizationId must be an authorization id (aut-<uuid>)' })
  @IsString()
  authorizationId?: string;
}

export class SimulateReversalDto {
  @ApiProperty({ example: 'aut-0b8e9a3c-2f1d-4e5a-9c7b-6d5e4f3a2b1c' })
  @Matches(AUTHORIZATION_ID, { message: 'authorizationId must be an authorization id (aut-<uuid>)' })
  @IsString()
  authorizationId: string;

  @ApiPropertyOptional({
    example: 5,
    description:
      'How much to release, in the merchant currency; everything left when absent (0400 without DE-095)',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  amount?: number;
}

export class SimulateClearingDto {
  @ApiPropertyOptional({
    example: 'aut-0b8e9a3c-2f1d-4e5a-9c7b-6d5e4f3a2b1c',
    description:
      'The authorization presented; absent for a force post (then cardId, amount and merchant are required)',
  })
  @IsOptional()
  @Matches(AUTHORIZATION_ID, { message: 'authorizationId must be an authorization id (aut-<uuid>)' })
  @IsString()
  authorizationId?: string;

  @ApiPropertyOptional({
    example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7',
    description: 'Force post only (ignored with authorizationId)',
  })
  @IsOptional()
  @Matches(CARD_ID, { message: 'cardId must be a card id (crd-<uuid>)' })
  @IsString()
  cardId?: string;

  @ApiPropertyOptional({
    example: 10,
    description: `${AMOUNT_DESCRIPTION}. With an authorization: its amount when absent; less is a partial presentment, more an over-presentment`,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  amount?: number;

  @ApiPropertyOptional({
    enum: SIMULATED_CURRENCIES,
    description: 'Force post only (ignored with authorizationId). ' + CURRENCY_DESCRIPTION,
  })
  @IsOptional()
  @IsIn(SIMULATED_CURRENCIES)
  @IsString()
  currency?: string;

  @ApiPropertyOptional({
    type: SimulatedMerchantDto,
    description: 'Force post only (ignored with authorizationId)',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => SimulatedMerchantDto)
  @IsObject()
  merchant?: SimulatedMerchantDto;
}

// ------------------------------------------------------------------------------------------- responses

class MerchantResponse {
  @ApiProperty() name: string;
  @ApiProperty() city: string;
  @ApiProperty() country: string;
  @ApiProperty({ example: '5814' }) mcc: string;
  @ApiPropertyOptional() mid?: string;
}

class FeeResponse {
  @ApiPropertyOptional({ description: '6 implied decimals' }) fx?: number;
  @ApiPropertyOptional({ description: '6 implied decimals' }) atm?: number;
  @ApiPropertyOptional({ description: '6 implied decimals' }) auth?: number;
}

/** The 3-D Secure authentication an e-commerce payment carried (additive; absent when it carried none). */
export class SimulatedAuthorizationThreeDsResponse {
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

/** The issuer's authorization record, as `GET /v1/authorizations/{id}` shows it. */
export class SimulatedAuthorizationRecord {
  @ApiProperty({ example: 'aut-0b8e9a3c-2f1d-4e5a-9c7b-6d5e4f3a2b1c' }) id: string;
  @ApiProperty() cardId: string;
  @ApiProperty() userId: string;
  @ApiProperty() walletId: string;
  @ApiProperty({ enum: AUTHORIZATION_TYPES }) type: string;
  @ApiProperty({ enum: AUTHORIZATION_STATUSES }) status: string;
  @ApiProperty({ enum: AUTHORIZATION_DECISIONS }) decision: string;
  @ApiPropertyOptional({ enum: DECLINE_REASON_CODES, description: 'Rejected only' })
  declineReasonCode?: string;
  @ApiPropertyOptional({
    enum: DECLINE_DETAILS,
    description: 'Rejected only: currency_not_supported when the program has no fx rate for the currency',
  })
  declineDetail?: string;
  @ApiProperty() merchantName: string;
  @ApiProperty() merchantMcc: string;
  @ApiProperty({ type: MerchantResponse }) merchant: MerchantResponse;
  @ApiProperty({ description: 'USD units' }) amount: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '12.50' }) merchantAmount: string;
  @ApiProperty({ example: 'EUR' }) merchantCurrency: string;
  @ApiProperty({ type: FeeResponse }) fee: FeeResponse;
  @ApiPropertyOptional({ format: 'date-time' }) decidedAt?: string;
  @ApiProperty() clearedAmount: number;
  @ApiProperty() reversedAmount: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ type: String, nullable: true }) originalAuthorizationId: string | null;
  @ApiProperty({ type: String, enum: ['stand_in', 'offline'], nullable: true }) advice: string | null;
  @ApiPropertyOptional({
    enum: DECIDED_BY,
    description: 'platform, distributor (real-time decisioning) or distributorTimeout (its onTimeout)',
  })
  decidedBy?: string;
  @ApiPropertyOptional({
    type: SimulatedAuthorizationThreeDsResponse,
    description:
      'An e-commerce payment that carried a 3-D Secure authentication value (CAVV / AAV): its ECI and whether it verified. Absent when it carried none',
  })
  threeDs?: SimulatedAuthorizationThreeDsResponse;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class NetworkExchangeResponse {
  @ApiProperty({ example: '400001', description: 'DE-032: with the RRN, the network reference' })
  acquirerId: string;
  @ApiProperty({ example: '633200000042', description: 'DE-037' }) rrn: string;
  @ApiProperty({ example: '000042', description: 'DE-011 of the message sent' }) stan: string;
  @ApiProperty({ enum: ['0100', '0120', '0400', '0420'] }) requestMti: string;
  @ApiProperty({ type: String, enum: ['0110', '0130', '0410', '0430'], nullable: true }) responseMti:
    string | null;
  @ApiProperty({ example: '00', description: 'DE-039 as the acquirer got it (docs/iso8583.md)' })
  responseCode: string;
  @ApiProperty({ type: String, nullable: true, example: '123456' }) approvalCode: string | null;
  @ApiProperty({
    type: String,
    enum: ['stand_in', 'reversal_advice'],
    nullable: true,
    description:
      'stand_in: the issuer did not answer in time and the network decided (an 0120 advice follows)',
  })
  advice: string | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'Null without an advice' })
  adviceAcknowledged: boolean | null;
}

export class SimulatedAuthorizationResponse {
  @ApiProperty({
    type: SimulatedAuthorizationRecord,
    nullable: true,
    description: 'The issuer’s record; null when it has none yet (an advice still waiting for the issuer)',
  })
  authorization: SimulatedAuthorizationRecord | null;
  @ApiProperty({ type: NetworkExchangeResponse }) network: NetworkExchangeResponse;
}

class ClearingPresentmentResponse {
  @ApiProperty() sequence: number;
  @ApiProperty({ enum: ['presentment', 'force_post'] }) kind: string;
  @ApiProperty() acquirerId: string;
  @ApiProperty() rrn: string;
  @ApiProperty({ description: 'Empty for a force post' }) approvalCode: string;
  @ApiProperty() cardId: string;
  @ApiProperty({ example: '4242' }) panLast4: string;
  @ApiProperty({ example: '000000' }) processingCode: string;
  @ApiProperty({ description: 'Minor units of currency' }) amountMinor: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty() mcc: string;
  @ApiProperty() merchantName: string;
  @ApiProperty() merchantCity: string;
  @ApiProperty() merchantCountry: string;
  @ApiProperty() merchantId: string;
  @ApiProperty() terminalId: string;
  @ApiProperty({ format: 'date-time' }) presentedAt: string;
}

class ClearingFileResponse {
  @ApiProperty({ example: 'CLR-sandbox-20261123-000001' }) fileId: string;
  @ApiProperty({ example: '2026-11-23' }) businessDate: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: [ClearingPresentmentResponse] }) presentments: ClearingPresentmentResponse[];
  @ApiProperty({ description: 'The file as stored: H, P and T lines separated by |' }) content: string;
}

export class SimulatedClearingResponse {
  @ApiProperty({ type: ClearingFileResponse }) file: ClearingFileResponse;
  @ApiProperty({ description: 'Whether the issuer imported it; false only where no clearing importer runs' })
  delivered: boolean;
}
