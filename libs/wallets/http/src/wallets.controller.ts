import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
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
    operationId: 'listWallets',
    summary: 'List wallets',
    description: 'Filter by userId to find the wallet of a user (one per activated user).',
  })
  @ApiPageResponse(WalletResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: WalletListQueryDto) {
    const result = await this.wallets.listWallets(caller, { userId: query.userId }, toPageQuery(query));
    return toPage(query, result, renderWallet);
  }

  @Get(':walletId')
  @ApiOperation({
    operationId: 'getWallet',
    summary: 'Retrieve a wallet',
    description: 'Balance, available balance and pending holds in USDC, and the deposit address.',
  })
  @ApiResponse({ status: 200, type: WalletResponse })
  async get(@CurrentCaller() caller: Caller, @Param('walletId', new ResourceIdPipe('wlt')) walletId: string) {
    return renderWallet(await this.wallets.getWallet(caller, walletId));
  }

  @Post(':walletId/withdrawals')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWithdrawal',
    summary: 'Withdraw USDC on-chain (prepaid programs only)',
    description:
      'Holds the amount at once and pays it out; the returned transaction is pending until withdrawal.confirmed ' +
      '(or withdrawal.rejected, which frees the amount). 403 forbidden for programs that are not prepaid; ' +
      '422 insufficient_funds above the available balance, 422 amount_too_large above 1,000,000,000 USDC; ' +
      '409 wallet_compliance_hold while a compliance hold is on.',
  })
  @ApiResponse({ status: 201, type: TransactionResponse })
  @ApiErrors(
    'forbidden',
    'wallet_compliance_hold',
    'invalid_state_transition',
    'concurrency_conflict',
    'insufficient_funds',
    'amount_too_large',
  )
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
    operationId: 'listTransactions',
    summary: 'List transactions',
    description:
      'Wallet movements: deposits, withdrawals, authorization holds, refunds, fees. `cardId` lists the movements ' +
      'made with that card (its authorizations\u2019 holds and clearings, force posts, refunds and fees; movements ' +
      'recorded before the card was kept with them carry `cardId: null` and are not listed by it).',
  })
  @ApiPageResponse(TransactionResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: TransactionListQueryDto) {
    const { walletId, userId, cardId, type, status } = query;
    const result = await this.wallets.listTransactions(
      caller,
      { walletId, userId, cardId, type, status },
      toPageQuery(query),
    );
    return toPage(query, result, renderTransaction);
  }

  @Get(':transactionId')
  @ApiOperation({
    operationId: 'getTransaction',
    summary: 'Retrieve a transaction',
    description: 'One wallet movement, with its on-chain hash and block once confirmed.',
  })
  @ApiResponse({ status: 200, type: TransactionResponse })
  async get(
    @CurrentCaller() caller: Caller,
    @Param('transactionId', new ResourceIdPipe('txn')) transactionId: string,
  ) {
    return renderTransaction(await this.wallets.getTransaction(caller, transactionId));
  }
}
