import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

// ---------------------------------------------------------------------------------------------------
// Response schemas of the environment pages. Records of the other contexts are their /v1 records plus
// `distributorId` (documented in the /v1 API reference); here they are objects, so that the operator
// document does not copy every /v1 schema. Never a PAN or CVV: cards carry `maskedPan` and `last4` only.
// ---------------------------------------------------------------------------------------------------

export const record = (description: string) =>
  ({ type: 'object', additionalProperties: true, description }) as const;
const records = (description: string) =>
  ({ type: 'array', items: { type: 'object', additionalProperties: true }, description }) as const;

const NEXT_CURSOR = {
  type: 'string',
  nullable: true,
  description: 'Pass it as `cursor` for the next page; null on the last page.',
} as const;

export class OperatorRecordPage {
  @ApiProperty(records('The items of this page'))
  data: unknown[];
  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

export class SearchResponse {
  @ApiProperty(records('Users (the /v1 user record plus distributorId)'))
  users: unknown[];
  @ApiProperty(records('Cards (the /v1 card record plus distributorId)'))
  cards: unknown[];
  @ApiProperty(records('Transactions: `{kind, id, createdAt, authorization | transaction}`'))
  transactions: unknown[];
}

export class DistributorRef {
  @ApiProperty({ example: 'dst-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  id: string;
  @ApiProperty({ example: 'Acme Pay' })
  name: string;
}

export class WalletSummaryResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['active', 'provisioning_failed'] }) status: string;
  @ApiProperty({ example: 'USDC' }) currency: string;
  @ApiProperty({ description: 'USDC, as /v1 renders amounts' }) balance: number;
  @ApiProperty({ description: 'USDC held by open authorizations and pending withdrawals' }) held: number;
  @ApiProperty({ description: 'USDC that can be spent: balance minus held' }) available: number;
  @ApiProperty({ ...record('The compliance hold: `{reason, since}`'), nullable: true })
  complianceHold: unknown;
  @ApiProperty({ type: 'string', nullable: true }) depositAddress: string | null;
}

export class UserDetailResponse {
  @ApiProperty(record('The user (the /v1 user record plus distributorId)')) user: unknown;
  @ApiProperty({ type: DistributorRef }) distributor: DistributorRef;
  @ApiProperty(records('Every KYC of the user, newest first')) kycs: unknown[];
  @ApiProperty({ type: WalletSummaryResponse, nullable: true }) wallet: WalletSummaryResponse | null;
  @ApiProperty(records('Open authorization holds (confirmed or partially cleared), newest first'))
  holds: unknown[];
  @ApiProperty(records('Every card of the user, newest first')) cards: unknown[];
  @ApiProperty(records('The latest authorizations, newest first')) authorizations: unknown[];
  @ApiProperty(records('The latest wallet transactions, newest first')) transactions: unknown[];
}

export class CardDetailResponse {
  @ApiProperty(record('The card (masked PAN and last four only)')) card: unknown;
  @ApiProperty({ ...record('The card holder'), nullable: true }) user: unknown;
  @ApiProperty(records('The latest authorizations of the card, newest first')) authorizations: unknown[];
}

export class TimelineEntryResponse {
  @ApiProperty({ enum: ['event', 'audit'] }) kind: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiPropertyOptional({ description: 'kind event: the Event id' }) eventId?: string;
  @ApiPropertyOptional({ description: 'kind event: its name (card.frozen)' }) eventName?: string;
  @ApiPropertyOptional(record('kind event: the Event as webhooks deliver it')) body?: unknown;
  @ApiPropertyOptional(record('kind audit: the audit entry')) entry?: unknown;
}

export class TimelinePage {
  @ApiProperty({ type: [TimelineEntryResponse] }) data: TimelineEntryResponse[];
  @ApiProperty(NEXT_CURSOR) nextCursor: string | null;
}

export class TransactionItemResponse {
  @ApiProperty({ enum: ['authorization', 'deposit', 'withdrawal', 'refund', 'fee'] }) kind: string;
  @ApiProperty() id: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional(record('kind authorization: the /v1 authorization record')) authorization?: unknown;
  @ApiPropertyOptional(record('other kinds: the /v1 wallet transaction record')) transaction?: unknown;
}

export class TransactionPage {
  @ApiProperty({ type: [TransactionItemResponse] }) data: TransactionItemResponse[];
  @ApiProperty(NEXT_CURSOR) nextCursor: string | null;
}

export class KycActionResponse {
  @ApiProperty(record('The KYC after the action')) kyc: unknown;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The user's link (an RFI's, while it works); null otherwise",
  })
  accessUrl: string | null;
}

export class RedeliveryResponse {
  @ApiProperty(records('The new delivery attempts, one per subscription of the distributor')) data: unknown[];
}
