import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Caller, CurrentCaller, SandboxOnly } from '@cip/gateway/http';
import {
  renderTransaction,
  toMinorUnits,
  WALLET_SIMULATION_API,
  WalletSimulationApi,
} from '@cip/wallets/contract';
import { SimulateDepositDto, TransactionResponse } from './wallets.dto';

@ApiTags('Simulations')
@Controller('v1/simulate/deposit')
@SandboxOnly()
export class SimulateDepositController {
  constructor(@Inject(WALLET_SIMULATION_API) private readonly wallets: WalletSimulationApi) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'simulateDeposit',
    summary: 'Simulate a USDC deposit (sandbox)',
    description:
      'Credits the wallet as if a transfer to its deposit address had confirmed: blockchainTransaction.confirmed and balance.updated follow. ' +
      '422 amount_too_large above 1,000,000,000 USDC, or when the balance would pass it.',
  })
  @ApiResponse({ status: 201, type: TransactionResponse })
  @ApiErrors('not_found', 'invalid_state_transition', 'concurrency_conflict', 'amount_too_large')
  async deposit(@CurrentCaller() caller: Caller, @Body() body: SimulateDepositDto) {
    const amount = toMinorUnits(body.amount);
    return renderTransaction(await this.wallets.simulateDeposit(caller, body.walletId, amount));
  }
}

/** The wallets context's controllers, mounted by apps that provide WALLETS_API. */
