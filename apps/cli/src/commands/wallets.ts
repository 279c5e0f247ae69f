import type { Environment } from '@cip/shared/contracts';
import { clockFromEnvironment } from '@cip/shared/runtime';
import {
  HdDepositAddressDeriver,
  loadDepositSeed,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { renderWallet, WalletView } from '@cip/wallets/read-models';
import { WalletsService } from '@cip/wallets/service';
import type { Command } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print } from '../command';
import { environmentOption } from '../options';

/**
 * The wallets service over the data directory's stores, for operator commands. Deposit addresses come
 * from the same seed as the platform's (WALLET_HD_SEED_<ENV> or DATA_DIR/secrets), so a wallet provisioned
 * here is the one the platform would have provisioned; the platform's consumers pick the events up.
 */
function openWallets(context: CommandContext): WalletsService {
  const infrastructure = context.infrastructure();
  const simulatedChain = new SimulatedChain(clockFromEnvironment());
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
    clockFromEnvironment(),
  );
}

const walletLines = (wallet: WalletView) => [
  `Wallet ${wallet.id} of ${wallet.userId}: ${wallet.status}`,
  `  deposit address  ${wallet.depositAddress ?? '-'}`,
  `  balance          ${wallet.balance} USDC (available ${wallet.availableBalance}, held ${wallet.pendingHolds})`,
  `  compliance hold  ${wallet.complianceHold ? wallet.complianceHold.reason : 'none'}`,
  ...(wallet.error ? [`  error            ${wallet.error.code}: ${wallet.error.message}`] : []),
];

export function registerWalletCommands(program: Command, cli: Cli): void {
  const wallets = commandGroup(program, 'wallets', "Operator actions on users' USDC wallets.");

  wallets
    .command('retry-provisioning')
    .description('Provision again the wallet of a user whose provisioning failed (create_wallet_error).')
    .argument('<userId>', 'the user whose wallet failed (usr-...)')
    .addOption(environmentOption())
    .addHelpText('after', examples('wallets retry-provisioning usr-... --env production'))
    .action(
      cli.action<{ env: Environment }>(async (context, { args: [userId], options }) => {
        const wallet = await openWallets(context).retryProvisioning(options.env, userId);
        await print(context, renderWallet(wallet), () => walletLines(wallet));
        return wallet.status === 'active' ? 0 : 1;
      }),
    );

  for (const [action, on] of [
    ['hold', true],
    ['release', false],
  ] as const) {
    wallets
      .command(action)
      .description(
        on
          ? 'Place a compliance hold on a wallet: spending and withdrawals are refused until it is released.'
          : 'Release the compliance hold of a wallet.',
      )
      .argument('<walletId>', 'the wallet (wlt-...)')
      .addOption(environmentOption())
      .requiredOption('--reason <text>', 'why, for the audit trail')
      .addHelpText(
        'after',
        examples(`wallets ${action} wlt-... --env production --reason "RFI ${on ? 'pending' : 'answered'}"`),
      )
      .action(
        cli.action<{ env: Environment; reason: string }>(async (context, { args: [walletId], options }) => {
          const wallet = await openWallets(context).setComplianceHold(
            options.env,
            walletId,
            on,
            options.reason,
          );
          await print(context, renderWallet(wallet), () => walletLines(wallet));
          return 0;
        }),
      );
  }
}
