import { ENVIRONMENTS, Environment } from '@cip/shared/contracts';
import { systemClock } from '@cip/shared/runtime';
import {
  HdDepositAddressDeriver,
  loadDepositSeed,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { renderWallet, WalletView } from '@cip/wallets/read-models';
import { WalletsService } from '@cip/wallets/service';
import { Command, CommandContext, print } from '../command';

const ENV_FLAG = { env: { kind: 'text', required: true, choices: ENVIRONMENTS } } as const;

/**
 * The wallets service over the data directory's stores, for operator commands. Deposit addresses come
 * from the same seed as the platform's (WALLET_HD_SEED_<ENV> or DATA_DIR/secrets), so a wallet provisioned
 * here is the one the platform would have provisioned; the platform's consumers pick the events up.
 */
function openWallets(context: CommandContext): WalletsService {
  const infrastructure = context.infrastructure();
  const simulatedChain = new SimulatedChain(systemClock);
  return new WalletsService(
    {
      eventStore: (environment) => infrastructure.scope(environment).eventStore,
      readStore: (environment) => infrastructure.scope(environment).readStore,
      // No consumers run in the CLI: its reads fold streams and never wait on read models.
      settle: async () => undefined,
      catchUpWallets: async () => undefined,
      chain: (environment) => ({
        deriver: new HdDepositAddressDeriver(
          loadDepositSeed({
            dataDir: context.dataDir,
            environment,
            fromEnv: context.io.env[`WALLET_HD_SEED_${environment.toUpperCase()}`],
          }),
          context.io.env.CHAIN_NAME || simulatedChain.name,
        ),
        payout: new SimulatedPayout(simulatedChain),
      }),
      simulatedChain,
    },
    systemClock,
  );
}

const walletLines = (wallet: WalletView) => [
  `Wallet ${wallet.id} of ${wallet.userId}: ${wallet.status}`,
  `  deposit address  ${wallet.depositAddress ?? '-'}`,
  `  balance          ${wallet.balance} USDC (available ${wallet.availableBalance}, held ${wallet.pendingHolds})`,
  `  compliance hold  ${wallet.complianceHold ? wallet.complianceHold.reason : 'none'}`,
  ...(wallet.error ? [`  error            ${wallet.error.code}: ${wallet.error.message}`] : []),
];

const complianceHoldCommand = (action: 'hold' | 'release', on: boolean): Command => ({
  group: 'wallets',
  action,
  args: ['walletId'],
  flags: { ...ENV_FLAG, reason: { kind: 'text', required: true } },
  description: on
    ? 'Place a compliance hold on a wallet: spending and withdrawals are refused until it is released.'
    : 'Release the compliance hold of a wallet.',
  async run(context, { args, flags }) {
    const environment = flags.requiredText('env') as Environment;
    const wallet = await openWallets(context).setComplianceHold(
      environment,
      args.walletId,
      on,
      flags.requiredText('reason'),
    );
    await print(context, renderWallet(wallet), () => walletLines(wallet));
    return 0;
  },
});

export const walletCommands: Command[] = [
  {
    group: 'wallets',
    action: 'retry-provisioning',
    args: ['userId'],
    flags: ENV_FLAG,
    description: 'Provision again the wallet of a user whose provisioning failed (create_wallet_error).',
    async run(context, { args, flags }) {
      const environment = flags.requiredText('env') as Environment;
      const wallet = await openWallets(context).retryProvisioning(environment, args.userId);
      await print(context, renderWallet(wallet), () => walletLines(wallet));
      return wallet.status === 'active' ? 0 : 1;
    },
  },
  complianceHoldCommand('hold', true),
  complianceHoldCommand('release', false),
];
