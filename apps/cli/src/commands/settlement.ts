import type { Environment } from '@cip/shared/contracts';
import { clockFromEnvironment, readPlatformConfig } from '@cip/shared/runtime';
import { fromMinorUnits } from '@cip/wallets/contract';
import {
  configuredSettlementAddresses,
  programSettlementAddresses,
  SettlementBatches,
} from '@cip/wallets/service';
import type { Command } from 'commander';
import { Cli, commandGroup, examples, print, table } from '../command';
import { environmentOption } from '../options';
import { openControlPlane } from './control-plane';

const usdc = (minor: number) => `${fromMinorUnits(minor)} USDC`;

export function registerSettlementCommands(program: Command, cli: Cli): void {
  const settlement = commandGroup(program, 'settlement', 'On-chain settlement of cleared card payments.');

  settlement
    .command('run')
    .description(
      "Cut the environment's settlement batches now: per program, every cleared payment, force post and " +
        'refund not yet in a batch, netted into one transfer to its settlement address. The batches are ' +
        'claimed here and paid by the platform (within a second while it runs, otherwise when it starts): ' +
        "only the platform signs with the hot wallet. Settlement addresses are the programs' (distributors configure " +
        '--settlement-address), else SETTLEMENT_ADDRESS_<ENV>, ' +
        'read as the platform reads them. Run twice, or beside a scheduled run, no payment is settled twice.',
    )
    .addOption(environmentOption())
    .addHelpText('after', examples('settlement run --env sandbox', 'settlement run --env production --json'))
    .action(
      cli.action<{ env: Environment }>(async (context, { options }) => {
        const infrastructure = context.infrastructure();
        const { directory } = await openControlPlane(context);
        const batches = new SettlementBatches(
          {
            eventStore: (environment) => infrastructure.scope(environment).eventStore,
            payout: () => {
              throw new Error('the CLI cuts settlement batches; the platform pays them');
            },
            settlementAddressOf: programSettlementAddresses(
              { programOf: (distributorId) => directory.get(distributorId)?.program ?? null },
              configuredSettlementAddresses(readPlatformConfig(context.io.env)),
            ),
          },
          clockFromEnvironment(),
        );
        const report = await batches.cut(options.env);
        await print(context, report, () => [
          report.conflict
            ? 'Another run claimed these payments at the same moment: nothing was cut here.'
            : report.batches.length === 0
              ? `No batch cut in ${options.env}.`
              : `Cut ${report.batches.length} batch(es) in ${options.env}; the platform pays them.`,
          ...(report.batches.length
            ? table(
                ['batch', 'program', 'payments', 'amount'],
                report.batches.map((batch) => [
                  batch.batchId,
                  batch.distributorId,
                  String(batch.items),
                  usdc(batch.amount),
                ]),
              )
            : []),
          ...report.waiting.map(
            (waiting) =>
              `Waiting: ${waiting.distributorId}, ${waiting.items} payment(s) netting ${usdc(waiting.amount)} (${waiting.reason}).`,
          ),
        ]);
        return 0;
      }),
    );
}
