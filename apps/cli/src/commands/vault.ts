import { openEmbeddedCardVault, type CardVault } from '@cip/cards/vault';
import type { Environment } from '@cip/shared/contracts';
import { readPlatformConfig } from '@cip/shared/runtime';
import { Command, Option } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print, table, UsageError } from '../command';
import { environmentOption } from '../options';

const DEFAULT_BATCH = 200;

/**
 * The environment's card vault, with the keys the platform uses: the configured ones (CARD_VAULT_*_<ENV>,
 * read from the same environment variables) or those under DATA_DIR/secrets.
 */
function openVault(context: CommandContext, environment: Environment): CardVault {
  let configured;
  try {
    configured = readPlatformConfig(context.io.env).cards[environment].vaultKeys;
  } catch (error) {
    // The platform would refuse to start with this environment: say which variable is wrong.
    throw new UsageError(error instanceof Error ? error.message : String(error), false);
  }
  return openEmbeddedCardVault({ dataDir: context.dataDir, environment, configured });
}

function batchSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > 10_000) {
    throw new UsageError('--batch-size takes a whole number from 1 to 10000');
  }
  return size;
}

export function registerVaultCommands(program: Command, cli: Cli): void {
  const vault = commandGroup(
    program,
    'vault',
    "The card vault: its key-encryption keys (KEKs) and the rotation that re-wraps every card's data key.",
  );

  vault
    .command('status')
    .description(
      'List the KEKs the vault knows (active, or retiring until re-wrapped) and the cards each wraps.',
    )
    .addOption(environmentOption())
    .addHelpText('after', examples('vault status --env production'))
    .action(
      cli.action<{ env: Environment }>(async (context, { options }) => {
        const opened = openVault(context, options.env);
        try {
          const keks = await opened.registeredKeks();
          await print(context, keks, () =>
            table(
              ['KEK', 'STATUS', 'CARDS'],
              keks.map((kek) => [kek.kekId, kek.status, String(kek.cards)]),
            ),
          );
          return 0;
        } finally {
          await opened.close();
        }
      }),
    );

  vault
    .command('rotate-kek')
    .description(
      'Make a new KEK the active one and re-wrap every data key with it, in batches, while the platform ' +
        'runs: it issues under the new KEK from the switch on and reads every card throughout. The old KEK ' +
        'is removed once no data key uses it. Interrupted (kill, crash), run it again: it finishes the same ' +
        'rotation. With CARD_VAULT_KEKS_<ENV> set, the ring is fixed: put the new key first there, restart ' +
        'the platform, then run this to re-wrap under it.',
    )
    .addOption(environmentOption())
    .addOption(
      new Option('--batch-size <count>', 'data keys re-wrapped per transaction')
        .default(DEFAULT_BATCH)
        .argParser(batchSize),
    )
    .addHelpText(
      'after',
      examples('vault rotate-kek --env production', 'vault rotate-kek --env sandbox --batch-size 50 --json'),
    )
    .action(
      cli.action<{ env: Environment; batchSize: number }>(async (context, { options }) => {
        const opened = openVault(context, options.env);
        try {
          const progress = context.progress(`vault rotate-kek ${options.env}`);
          const rotation = await opened.rotateKek({
            batchSize: options.batchSize,
            onProgress: (rewrapped) => progress.update(() => `${rewrapped} data keys re-wrapped`),
          });
          progress.done(`${rotation.rewrapped} data keys re-wrapped`);
          await print(context, rotation, () => [
            `${rotation.resumed ? 'Finished the interrupted rotation' : 'Rotated'}: every data key of ` +
              `${options.env} is wrapped by ${rotation.kekId} (${rotation.rewrapped} re-wrapped now).`,
            rotation.retired.length
              ? `Removed KEK(s) no data key uses any more: ${rotation.retired.join(', ')}.`
              : 'No KEK was removed.',
          ]);
          return 0;
        } finally {
          await opened.close();
        }
      }),
    );
}
