import type { Environment } from '@cip/shared/contracts';
import { rotateSigningKey } from '@cip/webhooks/service';
import { Command, InvalidArgumentError } from 'commander';
import { Cli, commandGroup, examples, print, UsageError } from '../command';
import { environmentOption } from '../options';

const HOUR_MS = 3_600_000;

/** `--overlap-hours 24`: a non-negative number of hours. */
function hours(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError('Takes a non-negative number of hours.');
  }
  return parsed;
}

export function registerWebhookCommands(program: Command, cli: Cli): void {
  const webhooks = commandGroup(program, 'webhooks', 'Webhook signing keys.');

  webhooks
    .command('rotate-signing-key')
    .description(
      'Replace the Ed25519 webhook signing key; the old key keeps signing beside the new one for the overlap ' +
        '(default 72 hours). A running platform picks the new key up within a second.',
    )
    .addOption(environmentOption())
    .option('--overlap-hours <hours>', 'how long the previous key keeps signing', hours, 72)
    .addHelpText('after', examples('webhooks rotate-signing-key --env production --overlap-hours 24'))
    .action(
      cli.action<{ env: Environment; overlapHours: number }>(async (context, { options }) => {
        const environment = options.env;
        const variable = `WEBHOOK_SIGNING_KEY_${environment.toUpperCase()}`;
        if (context.io.env[variable]) {
          throw new UsageError(
            `${variable} is set: the deployment provides that key, rotate it there`,
            false,
          );
        }
        const { current, previous } = rotateSigningKey({
          dataDir: context.dataDir,
          environment,
          overlapMs: options.overlapHours * HOUR_MS,
          now: new Date(),
        });
        const view = {
          environment,
          current: { keyId: current.keyId, publicKey: current.publicKey },
          previous: { keyId: previous.keyId, publicKey: previous.publicKey, retiresAt: previous.retiresAt },
        };
        await print(context, view, () => [
          `Rotated the ${environment} webhook signing key`,
          `  new key       ${current.keyId}  ${current.publicKey}`,
          `  previous key  ${previous.keyId}  signs until ${previous.retiresAt}`,
        ]);
        return 0;
      }),
    );
}
