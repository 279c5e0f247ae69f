import { ENVIRONMENTS, Environment } from '@cip/shared/contracts';
import { rotateSigningKey } from '@cip/webhooks/service';
import { UsageError } from '../args';
import { Command, print } from '../command';

const HOUR_MS = 3_600_000;

export const webhookCommands: Command[] = [
  {
    group: 'webhooks',
    action: 'rotate-signing-key',
    args: [],
    flags: {
      env: { kind: 'text', required: true, choices: ENVIRONMENTS },
      'overlap-hours': { kind: 'text', valueName: 'hours' },
    },
    description:
      'Replace the Ed25519 webhook signing key; the old key keeps signing beside the new one for the overlap ' +
      '(default 72 hours). A running platform picks the new key up within a second.',
    async run(context, { flags }) {
      const environment = flags.requiredText('env') as Environment;
      const variable = `WEBHOOK_SIGNING_KEY_${environment.toUpperCase()}`;
      if (context.io.env[variable]) {
        throw new UsageError(`${variable} is set: the deployment provides that key, rotate it there`);
      }
      const hours = Number(flags.text('overlap-hours') ?? '72');
      if (!Number.isFinite(hours) || hours < 0)
        throw new UsageError('--overlap-hours must be a non-negative number');
      const { current, previous } = rotateSigningKey({
        dataDir: context.dataDir,
        environment,
        overlapMs: hours * HOUR_MS,
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
    },
  },
];
