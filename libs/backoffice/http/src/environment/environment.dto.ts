import { PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Length, Matches } from 'class-validator';
import { AUTHORIZATION_STATUSES } from '@cip/authorizations/contract';
import {
  OPERATOR_USER_STATUSES,
  type OperatorUserStatus,
  TRANSACTION_KINDS,
  type TransactionFilter,
  type TransactionKind,
} from '@cip/backoffice/contract';
import { CARD_HOLDS, type CardHold } from '@cip/cards/contract';
import { IsSafeText, PageLimit, resourceIdPattern } from '@cip/gateway/http';
import { DEFAULT_PAGE_LIMIT, ReasonDto } from '../common/operator-dto';
import { DECLINED_CODES, type DeclinedCode, RFI_SUBTYPES, type RfiSubtype } from '@cip/kyc/contract';
import { DomainError, ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import { TRANSACTION_STATUSES } from '@cip/wallets/contract';
import { DELIVERY_STATUSES, type DeliveryStatus } from '@cip/webhooks/contract';

// ---------------------------------------------------------------------------------------------------
// Path parameters: a value that cannot name anything (an environment other than sandbox and production,
// a hold that does not exist) is `404 not_found`, as an id of the wrong shape is on /v1.
// ---------------------------------------------------------------------------------------------------

export class EnvironmentPipe implements PipeTransform<string, Environment> {
  transform(value: string): Environment {
    if (!(ENVIRONMENTS as readonly string[]).includes(value))
      throw new DomainError('not_found', `No environment ${value.slice(0, 40)}: sandbox or production`);
    return value as Environment;
  }
}

export class CardHoldPipe implements PipeTransform<string, CardHold> {
  transform(value: string): CardHold {
    if (!(CARD_HOLDS as readonly string[]).includes(value))
      throw new DomainError('not_found', `No card hold ${value.slice(0, 40)}: ${CARD_HOLDS.join(' or ')}`);
    return value as CardHold;
  }
}

/** The `environment` path parameter's documentation. */
export const ENVIRONMENT_PARAM = {
  name: 'environment',
  enum: ENVIRONMENTS,
  description: 'Whose data: sandbox or production, never both. Anything else is 404 not_found.',
} as const;

// ---------------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------------

const USER_ID = resourceIdPattern('usr');
const CARD_ID = resourceIdPattern('crd');
const DISTRIBUTOR_ID = resourceIdPattern('dst');

/**
 * `?limit=&cursor=` of the environment pages' lists. Not the operator API's `CursorPageQueryDto`: these
 * lists merge one list per distributor (or Events and audit entries), and their cursor holds a position
 * per source (`mergePages`), so it is longer than a single list's.
 */
export class OperatorListQueryDto {
  @PageLimit(DEFAULT_PAGE_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 4000,
    description: 'The `nextCursor` of the page before (opaque); anything else is 400 validation_error.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,4000}$/, { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;
}

export const pageQuery = (query: OperatorListQueryDto) => ({
  limit: query.limit ?? DEFAULT_PAGE_LIMIT,
  cursor: query.cursor,
});

export class SearchQueryDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 254,
    example: 'ada@example.com',
    description:
      'A user id (usr-...), an email, a phone in E.164 (+33612345678), a card id (crd-...), the last four ' +
      'digits of a card, an authorization id (aut-...) or a wallet transaction id (txn-...).',
  })
  @IsString()
  @Length(1, 254)
  @IsSafeText()
  q: string;
}

export class CardSearchQueryDto extends OperatorListQueryDto {
  @ApiProperty({ pattern: '^[0-9]{4}$', example: '4242' })
  @Matches(/^[0-9]{4}$/, { message: 'last4 must be four digits' })
  last4: string;

  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;
}

const TRANSACTION_STATUS_VALUES = [...new Set<string>([...AUTHORIZATION_STATUSES, ...TRANSACTION_STATUSES])];

export class TransactionsQueryDto extends OperatorListQueryDto {
  @ApiPropertyOptional({ example: 'dst-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(DISTRIBUTOR_ID, { message: 'distributorId must be a distributor id (dst-<uuid>)' })
  distributorId?: string;

  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;

  @ApiPropertyOptional({
    example: 'crd-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10',
    description: 'Authorizations of this card only (wallet movements have no card).',
  })
  @IsOptional()
  @Matches(CARD_ID, { message: 'cardId must be a card id (crd-<uuid>)' })
  cardId?: string;

  @ApiPropertyOptional({ enum: TRANSACTION_KINDS })
  @IsOptional()
  @IsIn(TRANSACTION_KINDS)
  kind?: TransactionKind;

  @ApiPropertyOptional({
    enum: TRANSACTION_STATUS_VALUES,
    description: "An authorization's status or a wallet transaction's, as /v1 shows them.",
  })
  @IsOptional()
  @IsIn(TRANSACTION_STATUS_VALUES)
  status?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Created at or after (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Created at or before (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

export function toTransactionFilter(query: TransactionsQueryDto): TransactionFilter {
  const instant = (value: string | undefined, field: string) => {
    if (value === undefined) return undefined;
    const time = new Date(value);
    if (Number.isNaN(time.getTime()))
      throw new DomainError('validation_error', `${field} is not a date`, [{ field, message: 'not a date' }]);
    return time.toISOString();
  };
  return {
    distributorId: query.distributorId,
    userId: query.userId,
    cardId: query.cardId,
    kind: query.kind,
    status: query.status,
    from: instant(query.from, 'from'),
    to: instant(query.to, 'to'),
  };
}

export class SubscriptionsQueryDto extends OperatorListQueryDto {
  @ApiPropertyOptional({ example: 'dst-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(DISTRIBUTOR_ID, { message: 'distributorId must be a distributor id (dst-<uuid>)' })
  distributorId?: string;
}

export class DeliveriesQueryDto extends OperatorListQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

// ---------------------------------------------------------------------------------------------------
// Action bodies: every action says why (`ReasonDto`)
// ---------------------------------------------------------------------------------------------------

export class KycReviewDto extends ReasonDto {
  @ApiProperty({ enum: ['approve', 'decline'] })
  @IsIn(['approve', 'decline'])
  decision: 'approve' | 'decline';

  @ApiPropertyOptional({ enum: DECLINED_CODES, description: 'Why the KYC is declined (decline only).' })
  @IsOptional()
  @IsIn(DECLINED_CODES)
  declinedCode?: DeclinedCode;
}

export class RfiDto extends ReasonDto {
  @ApiProperty({ enum: RFI_SUBTYPES, description: 'What the Request for Information is about.' })
  @IsIn(RFI_SUBTYPES)
  rfiSubtype: RfiSubtype;
}

export class CardHoldDto extends ReasonDto {
  @ApiProperty({ enum: CARD_HOLDS })
  @IsIn(CARD_HOLDS)
  hold: CardHold;
}

export class UserStatusDto extends ReasonDto {
  @ApiProperty({
    enum: OPERATOR_USER_STATUSES,
    description:
      'frozen and back to active: support; disabled, revoked (terminal) and out of disabled: compliance.',
  })
  @IsIn(OPERATOR_USER_STATUSES)
  status: OperatorUserStatus;
}
