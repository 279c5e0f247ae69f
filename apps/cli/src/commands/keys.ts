import { keyView, type IssuedApiKey } from '@cip/distributors/service';
import type { Environment } from '@cip/shared/contracts';
import type { Command } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print, table } from '../command';
import { distributorOption, environmentOption } from '../options';
import { existingDistributor, openControlPlane } from './control-plane';

/**
 * The key goes to stdout, the warning to stderr, so that `--json` output piped into a secret manager
 * stays clean and the operator still sees the warning.
 */
async function showIssuedKey(context: CommandContext, issued: IssuedApiKey, heading: string, extra = {}) {
  await print(context, { ...extra, ...issued }, () => [
    heading,
    `  environment  ${issued.environment}`,
    `  key          ${issued.apiKey}`,
  ]);
  context.io.err(
    issued.environment === 'production'
      ? 'WARNING: this PRODUCTION key is shown once. Store it in a secret manager now: only its hash is kept, ' +
          'so it can never be displayed again (a lost key can only be rolled).\n'
      : 'This key is shown once: only its hash is kept.\n',
  );
}

export function registerKeyCommands(program: Command, cli: Cli): void {
  const keys = commandGroup(program, 'keys', "Distributors' API keys (shown once, only their hash kept).");

  keys
    .command('create')
    .description('Create an API key; the key is printed once and never stored.')
    .addOption(distributorOption('the distributor the key authenticates (dst-...)'))
    .addOption(environmentOption('environment the key works in'))
    .option('--label <text>', 'a label to tell keys apart')
    .addHelpText(
      'after',
      examples(
        'keys create --distributor dst-... --env sandbox --label "CI"',
        'keys create --distributor dst-... --env production --json',
      ),
    )
    .action(
      cli.action<{ distributor: string; env: Environment; label?: string }>(async (context, { options }) => {
        const { service, directory } = await openControlPlane(context);
        const distributor = existingDistributor(directory, options.distributor);
        const issued = await service.issueKey(distributor.distributorId, options.env, options.label ?? null);
        await showIssuedKey(
          context,
          issued,
          `Created ${issued.environment} API key ${issued.keyId} for distributor ${issued.distributorId}`,
        );
        return 0;
      }),
    );

  keys
    .command('list')
    .description("List a distributor's keys (never the keys themselves).")
    .addOption(distributorOption('the distributor whose keys are listed (dst-...)'))
    .addHelpText('after', examples('keys list --distributor dst-...'))
    .action(
      cli.action<{ distributor: string }>(async (context, { options }) => {
        const { directory } = await openControlPlane(context);
        const list = existingDistributor(directory, options.distributor).keys.map(keyView);
        await print(context, list, () =>
          list.length === 0
            ? ['No API keys.']
            : table(
                ['KEY ID', 'ENV', 'LAST4', 'STATUS', 'CREATED', 'LABEL'],
                list.map((k) => [k.keyId, k.environment, k.last4, k.status, k.createdAt, k.label ?? '']),
              ),
        );
        return 0;
      }),
    );

  keys
    .command('roll')
    .description('Revoke a key and issue its replacement in the same environment (printed once).')
    .argument('<keyId>', 'the key to replace (key-...)')
    .addHelpText('after', examples('keys roll key-...'))
    .action(
      cli.action(async (context, { args: [keyId] }) => {
        const { service } = await openControlPlane(context);
        const issued = await service.rollKey(keyId);
        await showIssuedKey(
          context,
          issued,
          `Rolled ${keyId}: it is revoked; its replacement is ${issued.keyId}`,
          {
            replacedKeyId: keyId,
          },
        );
        return 0;
      }),
    );

  keys
    .command('delete')
    .description('Revoke a key for good.')
    .argument('<keyId>', 'the key to revoke (key-...)')
    .addHelpText('after', examples('keys delete key-...'))
    .action(
      cli.action(async (context, { args: [keyId] }) => {
        const { service } = await openControlPlane(context);
        await service.deleteKey(keyId);
        await print(context, { keyId, status: 'revoked' }, () => [
          `Deleted ${keyId}: it no longer authenticates.`,
        ]);
        return 0;
      }),
    );
}
