import type { Clock } from '@cip/shared/runtime';
import { keccak256, stringToHex, zeroAddress } from 'viem';
import type { PayoutPort, PayoutRequest, PayoutResult } from './chain.ports';

/**
 * Where the sandbox's settlement batches go on the simulated chain when SETTLEMENT_ADDRESS_SANDBOX is not
 * set (an address nobody holds a key of: keccak256("cip:sandbox-settlement"), last 20 bytes).
 */
export const SIMULATED_SETTLEMENT_ADDRESS = '0x38651Ed2FBc13930D11fd4b1d88DDB974908B51F';

/**
 * The sandbox's chain: nothing is broadcast; transactions get a hash derived from what they are (so the
 * same withdrawal always gets the same hash) and block heights that only grow, about one block a second.
 */
export class SimulatedChain {
  readonly name = 'simulated';
  private lastBlock = 0;

  constructor(private readonly clock: Clock) {}

  /** The height of a block mined now. */
  mine(): number {
    this.lastBlock = Math.max(this.lastBlock + 1, Math.floor(this.clock.now().getTime() / 1000));
    return this.lastBlock;
  }

  transactionHash(...parts: string[]): string {
    return keccak256(stringToHex(`${this.name}:${parts.join(':')}`));
  }
}

/**
 * Sandbox payouts on the simulated chain. A transfer to the zero address is rejected the way an ERC-20
 * token reverts it, so integrators can exercise `withdrawal.rejected`; anything else confirms at once.
 * Idempotent per withdrawal id, as the port requires: a re-send returns the first result.
 */
export class SimulatedPayout implements PayoutPort {
  private readonly results = new Map<string, PayoutResult>();

  constructor(private readonly simulated: SimulatedChain) {}

  get chain(): string {
    return this.simulated.name;
  }

  async send(request: PayoutRequest): Promise<PayoutResult> {
    const known = this.results.get(request.withdrawalId);
    if (known) return known;
    const result = this.execute(request);
    this.results.set(request.withdrawalId, result);
    return result;
  }

  private execute(request: PayoutRequest): PayoutResult {
    if (request.toAddress.toLowerCase() === zeroAddress) {
      return { status: 'rejected', reason: 'ERC20: transfer to the zero address', hash: null };
    }
    const hash = this.simulated.transactionHash('payout', request.withdrawalId);
    const blockHeight = this.simulated.mine();
    const receipt = {
      transactionHash: hash,
      blockNumber: blockHeight,
      status: 'success',
      to: request.toAddress,
      amount: request.amountMinor.toString(),
      chain: this.simulated.name,
    };
    return { status: 'confirmed', hash, blockHeight, rawTxReceipt: JSON.stringify(receipt) };
  }
}

/**
 * Payouts of an environment with no chain to pay on (production before its chain and hot wallet are
 * configured): every withdrawal is rejected with the reason, instead of pretending that money left.
 */
export class UnconfiguredPayout implements PayoutPort {
  constructor(
    readonly chain: string,
    private readonly reason: string,
  ) {}

  async send(): Promise<PayoutResult> {
    return { status: 'rejected', reason: this.reason, hash: null };
  }
}
