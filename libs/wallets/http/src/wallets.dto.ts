import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import {
  IsSafeText,
  ListQueryDto,
  MONEY_DECIMALS_RULE,
  MoneyAmount,
  resourceIdPattern,
} from '@cip/gateway/http';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, USDC_DECIMALS } from '@cip/wallets/contract';

const USER_ID = resourceIdPattern('usr');
const WALLET_ID = resourceIdPattern('wlt');
const CARD_ID = resourceIdPattern('crd');
const AMOUNT_DESCRIPTION =
  'USDC, a JSON number with at most 6 decimals (more decimals: 400 validation_error), at most 1,000,000,000 ' +
  `(more: 422 amount_too_large). ${MONEY_DECIMALS_RULE}`;

export class WalletListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;
}

export class TransactionListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'wlt-5d0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b' })
  @IsOptional()
  @Matches(WALLET_ID, { message: 'walletId must be a wallet id (wlt-<uuid>)' })
  walletId?: string;

  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;

  @ApiPropertyOptional({ example: 'crd-0b7c1d2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(CARD_ID, { message: 'cardId must be a card id (crd-<uuid>)' })
  cardId?: string;

  @ApiPropertyOptional({ enum: TRANSACTION_TYPES })
  @IsOptional()
  @IsIn(TRANSACTION_TYPES)
  type?: string;

  @ApiPropertyOptional({ enum: TRANSACTION_STATUSES })
  @IsOptional()
  @IsIn(TRANSACTION_STATUSES)
  status?: string;
}

export class WithdrawalDto {
  @ApiProperty({ example: 25.5, description: AMOUNT_DESCRIPTION })
  @MoneyAmount({ unit: 'USDC', decimals: USDC_DECIMALS })
  amount: number;

  @ApiProperty({
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    description: 'EVM address receiving the USDC',
  })
  @IsSafeText()
  @MaxLength(42)
  @IsString()
  toAddress: string;
}

export class SimulateDepositDto {
  @ApiProperty({ example: 'wlt-5d0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b' })
  @Matches(WALLET_ID, { message: 'walletId must be a wallet id (wlt-<uuid>)' })
  @IsString()
  walletId: string;

  @ApiProperty({ example: 100, description: AMOUNT_DESCRIPTION })
  @MoneyAmount({ unit: 'USDC', decimals: USDC_DECIMALS })
  amount: number;
}

class ComplianceHoldResponse {
  @ApiProperty({ example: 'sanctions screening' }) reason: string;
  @ApiProperty() since: string;
}

class WalletErrorResponse {
  @ApiProperty({ example: 'create_wallet_error' }) code: string;
  @ApiProperty() message: string;
}

export class WalletResponse {
  @ApiProperty({ example: 'wlt-5d0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b' }) id: string;
  @ApiProperty() userId: string;
  @ApiProperty({ enum: ['active', 'provisioning_failed'] }) status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    description: 'Send USDC here',
  })
  depositAddress: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'simulated' }) chain: string | null;
  @ApiProperty({ example: 'USDC' }) currency: string;
  @ApiProperty({ example: 100.5, description: 'USDC; may be negative (spec part 1, fact 4)' })
  balance: number;
  @ApiProperty({ example: 90.5, description: 'balance - pendingHolds' }) availableBalance: number;
  @ApiProperty({ example: 10 }) pendingHolds: number;
  @ApiProperty({
    type: ComplianceHoldResponse,
    nullable: true,
    description: 'Set while a compliance hold blocks spending and withdrawals',
  })
  complianceHold: ComplianceHoldResponse | null;
  @ApiProperty({
    type: WalletErrorResponse,
    nullable: true,
    description: 'code create_wallet_error when provisioning failed',
  })
  error: WalletErrorResponse | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class TransactionResponse {
  @ApiProperty({ example: 'txn-1f0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b' }) id: string;
  @ApiProperty() walletId: string;
  @ApiProperty() userId: string;
  @ApiProperty({ enum: TRANSACTION_TYPES }) type: string;
  @ApiProperty({ enum: TRANSACTION_STATUSES }) status: string;
  @ApiProperty({ example: 25.5, description: 'USDC' }) amount: number;
  @ApiProperty({ example: 'USDC' }) currency: string;
  @ApiProperty({ type: String, nullable: true }) reference: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The card of a card movement (hold, clearing, force post, refund, fee); null for deposits and withdrawals',
  })
  cardId: string | null;
  @ApiProperty({ type: String, nullable: true }) transactionHash: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) blockNumber: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Withdrawals: the receiving address' })
  toAddress: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Rejected withdrawals: why' }) reason:
    string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}
