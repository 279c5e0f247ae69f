import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsSafeText, MONEY_DECIMALS_RULE, MoneyAmount, resourceIdPattern } from '@cip/gateway/http';
import { SIMULATED_CURRENCIES } from '@cip/simulator/domain';

export class SimulateThreeDsDto {
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  @Matches(resourceIdPattern('crd'), { message: 'cardId must be a card id (crd-<uuid>)' })
  @IsString()
  cardId: string;

  @ApiProperty({
    example: 'Corner Shop',
    maxLength: 40,
    description: 'EMV merchantName (at most 40 characters)',
  })
  @IsSafeText()
  @MaxLength(40)
  @Matches(/^[\x20-\x7e]+$/, { message: 'merchantName must be printable ASCII' })
  @IsString()
  merchantName: string;

  @ApiPropertyOptional({
    example: 42.5,
    description:
      `In units of merchantCurrency, a positive JSON number with at most its ISO 4217 decimals. ${MONEY_DECIMALS_RULE}. Absent: a card ` +
      'verification (EMV message category 02: no amount, merchantAmount and merchantCurrency null in the Event)',
  })
  @IsOptional()
  @MoneyAmount({ currencyField: 'merchantCurrency', defaultCurrency: 'USD' })
  merchantAmount?: number;

  @ApiPropertyOptional({
    example: 'EUR',
    enum: SIMULATED_CURRENCIES,
    description: 'ISO 4217; USD when absent',
  })
  @IsOptional()
  @IsIn(SIMULATED_CURRENCIES)
  @IsString()
  merchantCurrency?: string;
}

export class SimulatedThreeDsResultDto {
  @ApiProperty({ enum: ['Y', 'N'], description: 'The RReq transStatus: Y authenticated, N not' })
  transStatus: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'transStatusReason of an N: 01 rejected, 14 timed out',
  })
  transStatusReason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'ECI of a Y (05)' })
  eci: string | null;
  @ApiProperty({ description: 'Whether the RReq carried an authentication value' })
  authenticated: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'q83vEjRWeJCrze8SNFZ4kKvN7xI=',
    description:
      'The authentication value (CAVV) of a Y, 28 base64 characters: what the merchant puts in the authorization. POST /v1/simulate/authorization with this cardAuthenticationId sends it',
  })
  authenticationValue: string | null;
  @ApiProperty({ format: 'date-time' })
  receivedAt: string;
}

export class SimulatedThreeDsResponse {
  @ApiProperty({ format: 'uuid', description: "The sandbox 3DS server's transaction id" })
  threeDSServerTransID: string;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['Y', 'N', 'U', 'A', 'C', 'D', 'R', 'I'],
    description:
      'The ARes transStatus: Y frictionless, D a challenge you decide (cardAuthentication.created), N or R refused (see transStatusReason); null when the ACS answered an Erro',
  })
  transStatus: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'EMV transStatusReason of N or R' })
  transStatusReason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The card authentication of a D (tds-<uuid>)' })
  cardAuthenticationId: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The EMV Erro message the ACS answered instead of an ARes',
  })
  error: Record<string, unknown> | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'q83vEjRWeJCrze8SNFZ4kKvN7xI=',
    description:
      'A frictionless Y: the authentication value (CAVV, 28 base64 characters) the issuer verifies on the authorization that follows (POST /v1/simulate/authorization threeDs.authenticationValue); single use, 30 days',
  })
  authenticationValue: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'A frictionless Y: its ECI (05 authenticated)' })
  eci: string | null;
  @ApiProperty({
    type: SimulatedThreeDsResultDto,
    nullable: true,
    description: 'The RReq the 3DS server received when the challenge ended; null until then',
  })
  result: SimulatedThreeDsResultDto | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class ThreeDsSimulationResponse extends SimulatedThreeDsResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The card authentication of a D, as GET /v1/3ds/{id} returns it',
  })
  cardAuthentication: Record<string, unknown> | null;
}
