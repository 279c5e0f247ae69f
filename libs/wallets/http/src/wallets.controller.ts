import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Caller, CurrentCaller, ResourceIdPipe, toPage, toPageQuery } from '@cip/gateway/http';
import {
  renderTransaction,
  renderWallet,
  toMinorUnits,
  WALLETS_API,
  WalletsApi,
} from '@cip/wallets/contract';
import {
  TransactionListQueryDto,
  TransactionResponse,
  WalletListQueryDto,
  WalletResponse,
  WithdrawalDto,
} from './wallets.dto';

@ApiTags('Wallets')
@Controller('v1/wallets')
export class WalletsController {
  constructor(@Inject(WALLETS_API) private readonly wallets: WalletsApi) {}

  @Get()
  @ApiOperation({
    summary: 'List wallets',
    description: 'Filter by userId to find the wallet of a user (one per activated user).',
  })
  @ApiErrors(400, 401, 429)
  async list(@CurrentCaller() caller: Caller, @Query() query: WalletListQueryDto) {
    const result = await this.wallets.listWallets(caller, { userId: query.userId }, toPageQuery(query));
    return toPage(query, result, renderWallet);
  }

  @Get(':walletId')
  @ApiOperation({
    summary: 'Retrieve a wallet',
    description: 'Balance, available balance and pending holds in USDC, and the deposit address.',
  })
  @ApiResponse({ status: 200, type: WalletResponse })
  @ApiErrors(401, 404, 429)
  async get(@CurrentCaller() caller: Caller, @Param('walletId', new ResourceIdPipe('wlt')) walletId: string) {
    return renderWallet(await this.wallets.getWallet(caller, walletId));
  }

  @Post(':walletId/withdrawals')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Withdraw USDC on-chain (prepaid programs only)',
    description:
      'Holds the amount at once and pays it out; the returned transaction is pending until withdrawal.confirmed ' +
      '(or withdrawal.rejected, which frees the amount). 403 forbidden for programs that are not prepaid; ' +
      '422 insufficient_funds above the available balance, 422 amount_too_large above 1,000,000,000 USDC; ' +
      '409 wallet_compliance_hold while a compliance hold is on.',
  })
  @ApiResponse({ status: 201, type: TransactionResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422, 429)
  async withdraw(
    @CurrentCaller() caller: Caller,
    @Param('walletId', new ResourceIdPipe('wlt')) walletId: string,
    @Body() body: WithdrawalDto,
  ) {
    const amount = toMinorUnits(body.amount);
    return renderTransaction(
      await this.wallets.requestWithdrawal(caller, walletId, { amount, toAddress: body.toAddress }),
    );
  }
}

@ApiTags('Transactions')
@Controller('v1/transactions')
export class TransactionsController {
  constructor(@Inject(WALLETS_API) private readonly wallets: WalletsApi) {}

  @Get()
  @ApiOperation({
    summary: 'List transactions',
    description: 'Wallet movements: deposits, withdrawals, authorization holds, refunds, fees.',
  })
  @ApiErrors(400, 401, 429)
  async list(@CurrentCaller() caller: Caller, @Query() query: TransactionListQueryDto) {
    const { walletId, userId, type, status } = query;
    const result = await this.wallets.listTransactions(
      caller,
      { walletId, userId, type, status },
      toPageQuery(query),
    );
    return toPage(query, result, renderTransaction);
  }

  @Get(':transactionId')
  @ApiOperation({ summary: 'Retrieve a transaction' })
  @ApiResponse({ status: 200, type: TransactionResponse })
  @ApiErrors(401, 404, 429)
  async get(
    @CurrentCaller() caller: Caller,
    @Param('transactionId', new ResourceIdPipe('txn')) transactionId: string,
  ) {
    return renderTransaction(await this.wallets.getTransaction(caller, transactionId));
  }
}
