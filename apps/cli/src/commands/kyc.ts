import { DECLINED_CODES, DeclinedCode, RFI_SUBTYPES, RfiSubtype } from '@cip/kyc/domain';
import { KycService, loadKycLinkKey, SandboxIdentityProvider, UsersForKyc } from '@cip/kyc/service';
import type { Environment } from '@cip/shared/contracts';
import { clockFromEnvironment, newId } from '@cip/shared/runtime';
import { Command, Option } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print } from '../command';
import { distributorOption, environmentOption } from '../options';
import { openControlPlane, operatorCaller } from './control-plane';
import { openUsers } from './users';

/**
 * The KYC service over the data directory's stores, for operator actions (raising an RFI), with the same
 * users bridge as the platform. The effects of a review (activation, freezing after a declined or expired
 * RFI) run in the platform's service and saga, never from here.
 */
export async function openKyc(context: CommandContext): Promise<KycService> {
  const infrastructure = context.infrastructure();
  const users = openUsers(context);
  const { directory } = await openControlPlane(context);
  const lookup = new UsersForKyc(users, { programOf: (id) => directory.get(id)?.program ?? null });
  const provider = new SandboxIdentityProvider(
    loadKycLinkKey({ dataDir: context.dataDir, fromEnv: context.io.env.KYC_LINK_SECRET }),
  );
  provider.usePublicBaseUrl(context.publicBaseUrl());
  return new KycService(
    {
      eventStore: (environment) => infrastructure.scope(environment).eventStore,
      readStore: (environment) => infrastructure.scope(environment).readStore,
      settle: async () => undefined,
      users: lookup,
      provider,
      hostedFlow: provider,
    },
    clockFromEnvironment(),
  );
}

export function registerKycCommands(program: Command, cli: Cli): void {
  const kyc = commandGroup(program, 'kyc', 'Operator actions on identity verifications (KYC) and RFIs.');

  kyc
    .command('review')
    .description(
      "Review a submitted KYC (the production reviewer until a vendor's decisions are wired in): approve " +
        'activates the user as the spec says, decline takes an optional --code.',
    )
    .argument('<kycId>', 'the KYC to review (kyc-...)')
    .addOption(distributorOption('the distributor of the user (dst-...)'))
    .addOption(environmentOption())
    .addOption(
      new Option('--decision <decision>', 'the outcome')
        .choices(['approve', 'decline'])
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--code <declinedCode>', 'why it is declined (with decline)').choices(DECLINED_CODES),
    )
    .addHelpText(
      'after',
      examples(
        'kyc review kyc-... --distributor dst-... --env production --decision approve',
        'kyc review kyc-... --distributor dst-... --env production --decision decline --code identity',
      ),
    )
    .action(
      cli.action<{
        distributor: string;
        env: Environment;
        decision: 'approve' | 'decline';
        code?: DeclinedCode;
      }>(async (context, { args: [kycId], options }) => {
        const service = await openKyc(context);
        const { directory } = await openControlPlane(context);
        const { kyc: reviewed } = await service.review(
          operatorCaller(directory, options.distributor, options.env),
          kycId,
          options.decision,
          options.code,
        );
        await print(context, reviewed, () => [
          `KYC ${reviewed.id} is ${reviewed.status}` +
            (reviewed.status === 'verified'
              ? ` (user ${reviewed.userActivated ? 'activated' : 'not activated'})`
              : ''),
        ]);
        return 0;
      }),
    );

  kyc
    .command('rfi')
    .description(
      'Raise a Request for Information on a user (compliance). The user answers through the printed link ' +
        '(PUBLIC_BASE_URL, else the address the platform listens on: HOST and PORT); a declined or ' +
        'unanswered RFI freezes an active user.',
    )
    .argument('<userId>', 'the user (usr-...)')
    .addOption(distributorOption('the distributor of the user (dst-...)'))
    .addOption(environmentOption())
    .addOption(
      new Option('--subtype <subtype>', 'what the RFI is about').choices(RFI_SUBTYPES).makeOptionMandatory(),
    )
    .addHelpText(
      'after',
      examples('kyc rfi usr-... --distributor dst-... --env production --subtype transaction_monitoring'),
    )
    .action(
      cli.action<{ distributor: string; env: Environment; subtype: RfiSubtype }>(
        async (context, { args: [userId], options }) => {
          const service = await openKyc(context);
          const { kyc: raised, accessUrl } = await service.raiseRfi(
            { distributorId: options.distributor, environment: options.env, requestId: newId('cli') },
            userId,
            options.subtype,
          );
          await print(context, { ...raised, access: { url: accessUrl } }, () => [
            `Raised RFI ${raised.id} (${raised.rfiSubtype}) on user ${raised.userId}`,
            `  link         ${accessUrl}`,
            `  expires      ${raised.linkExpiresAt}`,
          ]);
          return 0;
        },
      ),
    );
}
