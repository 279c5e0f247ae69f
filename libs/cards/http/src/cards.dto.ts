import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  CARD_BLOCKS,
  CARD_DELIVERY_TYPES,
  CARD_REISSUE_REASONS,
  CARD_STATUSES,
  CARD_TIERS,
  CARD_TYPES,
  SHIPMENT_STATUSES,
  SHIPPING_METHODS,
  type SpendingControlsUpdate,
} from '@cip/cards/contract';
import {
  MAX_MCCS_PER_LIST,
  MCC_GROUP_NAMES,
  RESTRICTED_MCC_GROUPS,
  SPENDING_LIMIT_INTERVALS,
} from '@cip/cards/domain';
import {
  IsSafeText,
  ListQueryDto,
  MONEY_DECIMALS_RULE,
  MoneyAmount,
  resourceIdPattern,
  ShippingAddressDto,
} from '@cip/gateway/http';
import { DomainError, type ApiFieldError } from '@cip/shared/contracts';
import { FIAT_DECIMALS, toMinorUnits } from '@cip/wallets/contract';

export const USER_ID = resourceIdPattern('usr');
export const USER_ID_MESSAGE = 'userId must be a user id (usr-<uuid>)';

export class CardListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: USER_ID_MESSAGE })
  userId?: string;

  @ApiPropertyOptional({ enum: CARD_STATUSES })
  @IsOptional()
  @IsIn(CARD_STATUSES)
  status?: (typeof CARD_STATUSES)[number];
}

// ---------------------------------------------------------------------------------------------------
// Spending controls. The DTOs check the shape (unknown fields refused); the cards domain validates the
// values (`parseSpendingControls`, in the decider, so every transport gets the same rules).
// ---------------------------------------------------------------------------------------------------

const MCC = { type: 'string', pattern: '^[0-9]{4}$', example: '7995' } as const;
const LIMIT_AMOUNT =
  'USD (1 USD settles 1 USDC), a JSON number with at most 2 decimals, above 0 and at most 1,000,000,000. ' +
  MONEY_DECIMALS_RULE;

export class SpendingLimitDto {
  @ApiProperty({ example: 500, description: LIMIT_AMOUNT })
  @MoneyAmount({ unit: 'USD', decimals: FIAT_DECIMALS })
  amount: number;

  @ApiProperty({
    enum: SPENDING_LIMIT_INTERVALS,
    description: 'per_authorization, or a UTC calendar window (weeks start on Monday)',
  })
  @IsIn(SPENDING_LIMIT_INTERVALS)
  interval: (typeof SPENDING_LIMIT_INTERVALS)[number];
}

export class SpendingControlsUpdateDto {
  @ApiPropertyOptional({
    type: [SpendingLimitDto],
    maxItems: SPENDING_LIMIT_INTERVALS.length,
    description: 'At most one limit per interval; every limit applies. Omitted or []: no limits.',
  })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => SpendingLimitDto)
  @ArrayMaxSize(SPENDING_LIMIT_INTERVALS.length)
  @IsArray()
  limits?: SpendingLimitDto[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...MCC_GROUP_NAMES] },
    maxItems: MAX_MCCS_PER_LIST,
    description: `Omitted: the program's defaults (${RESTRICTED_MCC_GROUPS.join(', ')}); [] lifts every group block.`,
  })
  @IsOptional()
  @IsString({ each: true })
  @IsArray()
  blockedMccGroups?: string[];

  @ApiPropertyOptional({
    type: 'array',
    items: MCC,
    maxItems: MAX_MCCS_PER_LIST,
    description: 'Merchant category codes declined (ISO 18245). Not together with allowedMccs.',
  })
  @IsOptional()
  @IsString({ each: true })
  @IsArray()
  blockedMccs?: string[];

  @ApiPropertyOptional({
    type: 'array',
    items: MCC,
    maxItems: MAX_MCCS_PER_LIST,
    description: 'When not empty, only these merchant category codes pass; none may be in a blocked group.',
    // Empty in the example: set together with blockedMccs it would be refused.
    example: [],
  })
  @IsOptional()
  @IsString({ each: true })
  @IsArray()
  allowedMccs?: string[];
}

/**
 * The body as the cards contract takes it: limit amounts from USD to the platform's minor units, by the
 * money rules of every API amount (at most 2 decimals for fiat). Beyond the bound is `422
 * amount_too_large`, whatever else is wrong; every malformed amount is listed in one `400`.
 */
export function toSpendingControlsUpdate(
  body: SpendingControlsUpdateDto,
  fieldPrefix = '',
): SpendingControlsUpdate {
  const errors: ApiFieldError[] = [];
  const limits = body.limits?.map((limit, index) => {
    try {
      const field = `${fieldPrefix}limits.${index}.amount`;
      return { ...limit, amount: toMinorUnits(limit.amount, field, FIAT_DECIMALS) };
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'validation_error') throw error;
      errors.push(...(error.details ?? []));
      return limit;
    }
  });
  if (errors.length > 0) {
    throw new DomainError('validation_error', `Invalid spending controls: ${errors[0].message}`, errors);
  }
  return { ...body, ...(limits ? { limits } : {}) };
}

export class ReissueCardDto {
  @ApiProperty({
    enum: CARD_REISSUE_REASONS,
    description:
      'lost and stolen revoke the card at once; damaged and expired keep it working until the new card is active',
  })
  @IsIn(CARD_REISSUE_REASONS)
  reason: (typeof CARD_REISSUE_REASONS)[number];
}

export class SimulateShipmentDto {
  @ApiPropertyOptional({
    example: '1Z999AA10123456784',
    maxLength: 64,
    description: 'Omitted: the sandbox carrier makes one up (the same one for the same card)',
  })
  @IsOptional()
  @IsSafeText()
  @MaxLength(64)
  @IsNotEmpty()
  @IsString()
  trackingNumber?: string;

  @ApiPropertyOptional({
    enum: SHIPPING_METHODS,
    description: 'The method the carrier used. Omitted: the one the card was requested with (standard)',
  })
  @IsOptional()
  @IsIn(SHIPPING_METHODS)
  shippingMethod?: (typeof SHIPPING_METHODS)[number];
}

export class CardShipmentResponse {
  @ApiProperty({
    enum: SHIPMENT_STATUSES,
    description:
      'pending: not yet accepted by the card bureau; submitted: being printed and packed; shipped: dispatched',
  })
  status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null until the carrier assigned one; it may change',
  })
  trackingNumber: string | null;
  @ApiProperty({ enum: SHIPPING_METHODS }) requestedShippingMethod: string;
  @ApiProperty({ enum: SHIPPING_METHODS, nullable: true, description: 'Null until shipped' })
  actualShippingMethod: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) shippedAt: string | null;
}

export class SpendingControlsResponse {
  @ApiProperty({ type: [SpendingLimitDto] }) limits: SpendingLimitDto[];
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...MCC_GROUP_NAMES] } })
  blockedMccGroups: string[];
  @ApiProperty({ type: 'array', items: MCC }) blockedMccs: string[];
  @ApiProperty({ type: 'array', items: MCC }) allowedMccs: string[];
}

export class CardResponse {
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' }) id: string;
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) userId: string;
  @ApiProperty({
    example: 'wlt-5d0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b',
    description: 'The wallet it spends from',
  })
  walletId: string;
  @ApiProperty({ enum: CARD_TYPES }) type: string;
  @ApiProperty({ enum: CARD_STATUSES, description: 'Spec part 3; revoked is terminal' }) status: string;
  @ApiProperty({ example: '40000099', description: 'The issuer BIN the card number starts with' })
  bin: string;
  @ApiProperty({ example: '4242', description: 'The last four digits of the card number' }) last4: string;
  @ApiProperty({
    example: '400000******4242',
    description: 'The first six and last four digits; the full number and the CVV are never returned',
  })
  maskedPan: string;
  @ApiProperty({ example: 11, minimum: 1, maximum: 12 }) expMonth: number;
  @ApiProperty({ example: 2029 }) expYear: number;
  @ApiProperty({
    type: SpendingControlsResponse,
    description: "The program's defaults until set: no limits, the restricted MCC groups blocked",
  })
  spendingControls: SpendingControlsResponse;
  @ApiProperty({ enum: CARD_TIERS, nullable: true, description: 'Physical cards; null for virtual ones' })
  tier: string | null;
  @ApiProperty({
    enum: CARD_DELIVERY_TYPES,
    nullable: true,
    description: 'Physical cards; null for virtual ones',
  })
  deliveryType: string | null;
  @ApiProperty({
    type: ShippingAddressDto,
    nullable: true,
    description:
      'Physical cards: the address current at creation, where the card ships. Null for virtual cards, ' +
      "and once the user's personal data was erased",
  })
  shippingAddress: ShippingAddressDto | null;
  @ApiProperty({
    type: CardShipmentResponse,
    nullable: true,
    description: 'Physical cards; null for virtual ones',
  })
  shipment: CardShipmentResponse | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The card this one replaces (POST /v1/cards/{id}/reissue), else null',
  })
  replacesCardId: string | null;
  @ApiProperty({
    enum: CARD_BLOCKS,
    isArray: true,
    example: ['compliance_hold'],
    description:
      'Read-only. What keeps the card from being unfrozen by its distributor (409 ' +
      'card_unfreeze_blocked_error names them): compliance_hold and fraud_hold (placed and lifted by the ' +
      "platform's operators: contact support), user_frozen (lifted when the user is active again) and " +
      'pin_cvv_attempts (three consecutive wrong PIN or CVV2 entries, card.blocked; lifted by an operator ' +
      'only, card.unblocked). Empty when nothing blocks the card.',
  })
  blocks: string[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}
