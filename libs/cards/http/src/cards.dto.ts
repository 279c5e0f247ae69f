import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  ValidateNested,
} from 'class-validator';
import { CARD_BLOCKS, CARD_STATUSES, CARD_TYPES, type SpendingControlsUpdate } from '@cip/cards/contract';
import {
  MAX_MCCS_PER_LIST,
  MCC_GROUP_NAMES,
  RESTRICTED_MCC_GROUPS,
  SPENDING_LIMIT_INTERVALS,
} from '@cip/cards/domain';
import { ListQueryDto, resourceIdPattern } from '@cip/gateway/http';
import { DomainError, type ApiFieldError } from '@cip/shared/contracts';
import { FIAT_DECIMALS, toMinorUnits } from '@cip/wallets/contract';

const USER_ID = resourceIdPattern('usr');
const USER_ID_MESSAGE = 'userId must be a user id (usr-<uuid>)';

export class CreateCardDto {
  @ApiProperty({
    example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10',
    description: 'An active user with a wallet',
  })
  @Matches(USER_ID, { message: USER_ID_MESSAGE })
  @IsString()
  userId: string;

  @ApiProperty({ enum: CARD_TYPES, description: 'Virtual cards only so far; they are active at once' })
  @IsIn(CARD_TYPES)
  type: (typeof CARD_TYPES)[number];
}

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
  'USD (1 USD settles 1 USDC), a JSON number with at most 2 decimals, above 0 and at most 1,000,000,000';

export class SpendingLimitDto {
  @ApiProperty({ example: 500, description: LIMIT_AMOUNT })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
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
export function toSpendingControlsUpdate(body: SpendingControlsUpdateDto): SpendingControlsUpdate {
  const errors: ApiFieldError[] = [];
  const limits = body.limits?.map((limit, index) => {
    try {
      return { ...limit, amount: toMinorUnits(limit.amount, `limits.${index}.amount`, FIAT_DECIMALS) };
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
