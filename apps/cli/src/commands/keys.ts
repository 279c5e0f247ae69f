import type { IssuedApiKey } from '@cip/distributors/service';
import { ENVIRONMENTS, Environment } from '@cip/shared/contracts';
import { Command, CommandContext, print, table } from '../command';
import { existingDistributor, openControlPlane } from './control-plane';
import { keyView } from './distributors';

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

export const keyCommands: Command[] = [
  {
    group: 'keys',
    action: 'create',
    args: [],
    flags: {
      distributor: { kind: 'text', required: true, valueName: 'distributorId' },
      env: { kind: 'text', required: true, choices: ENVIRONMENTS },
      label: { kind: 'text', valueName: 'text' },
    },
    description: 'Create an API key; the key is printed once and never stored.',
    async run(context, { flags }) {
      const { service, directory } = await openControlPlane(context);
      const distributor = existingDistributor(directory, flags.requiredText('distributor'));
      const issued = await service.issueKey(
        distributor.distributorId,
        flags.requiredText('env') as Environment,
        flags.text('label') ?? null,
      );
      await showIssuedKey(
        context,
        issued,
        `Created ${issued.environment} API key ${issued.keyId} for distributor ${issued.distributorId}`,
      );
      return 0;
    },
  },
  {
    group: 'keys',
    action: 'list',
    args: [],
    flags: { distributor: { kind: 'text', required: true, valueName: 'distributorId' } },
    description: "List a distributor's keys (never the keys themselves).",
    async run(context, { flags }) {
      const { directory } = await openControlPlane(context);
      const keys = existingDistributor(directory, flags.requiredText('distributor')).keys.map(keyView);
      await print(context, keys, () =>
        keys.length === 0
          ? ['No API keys.']
          : table(
              ['KEY ID', 'ENV', 'LAST4', 'STATUS', 'CREATED', 'LABEL'],
              keys.map((k) => [k.keyId, k.environment, k.last4, k.status, k.createdAt, k.label ?? '']),
            ),
      );
      return 0;
    },
  },
  {
    group: 'keys',
    action: 'roll',
    args: ['keyId'],
    flags: {},
    description: 'Revoke a key and issue its replacement in the same environment (printed once).',
    async run(context, { args }) {
      const { service } = await openControlPlane(context);
      const issued = await service.rollKey(args.keyId);
      await showIssuedKey(
        context,
        issued,
        `Rolled ${args.keyId}: it is revoked; its replacement is ${issued.keyId}`,
        {
          replacedKeyId: args.keyId,
        },
      );
      return 0;
    },
  },
  {
    group: 'keys',
    action: 'delete',
    args: ['keyId'],
    flags: {},
    description: 'Revoke a key for good.',
    async run(context, { args }) {
      const { service } = await openControlPlane(context);
      await service.deleteKey(args.keyId);
      await print(context, { keyId: args.keyId, status: 'revoked' }, () => [
        `Deleted ${args.keyId}: it no longer authenticates.`,
      ]);
      return 0;
    },
  },
];
