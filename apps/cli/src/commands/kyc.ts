import { DECLINED_CODES, DeclinedCode, RFI_SUBTYPES, RfiSubtype } from '@cip/kyc/domain';
import { KycService, loadKycLinkKey, SandboxIdentityProvider, UsersForKyc } from '@cip/kyc/service';
import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import { newId, systemClock } from '@cip/shared/runtime';
import { Command, CommandContext, print } from '../command';
import { existingDistributor, openControlPlane } from './control-plane';
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
  provider.usePublicBaseUrl(
    context.io.env.PUBLIC_BASE_URL || `http://localhost:${context.io.env.PORT || 3000}`,
  );
  return new KycService(
    {
      eventStore: (environment) => infrastructure.scope(environment).eventStore,
      readStore: (environment) => infrastructure.scope(environment).readStore,
      settle: async () => undefined,
      users: lookup,
      provider,
      hostedFlow: provider,
    },
    systemClock,
  );
}

export const kycCommands: Command[] = [
  {
    group: 'kyc',
    action: 'review',
    args: ['kycId'],
    flags: {
      distributor: { kind: 'text', required: true, valueName: 'distributorId' },
      env: { kind: 'text', required: true, choices: ENVIRONMENTS },
      decision: { kind: 'text', required: true, choices: ['approve', 'decline'] },
      code: { kind: 'text', required: false, choices: DECLINED_CODES, valueName: 'declinedCode' },
    },
    description:
      "Review a submitted KYC (the production reviewer until a vendor's decisions are wired in): approve " +
      'activates the user as the spec says, decline takes an optional --code.',
    async run(context, { args, flags }) {
      const service = await openKyc(context);
      const distributorId = flags.requiredText('distributor');
      const { directory } = await openControlPlane(context);
      const program = existingDistributor(directory, distributorId).program;
      const { kyc } = await service.review(
        {
          distributorId,
          environment: flags.requiredText('env') as Environment,
          requestId: newId('cli'),
          program,
        },
        args.kycId,
        flags.requiredText('decision') as 'approve' | 'decline',
        flags.text('code') as DeclinedCode | undefined,
      );
      await print(context, kyc, () => [
        `KYC ${kyc.id} is ${kyc.status}` +
          (kyc.status === 'verified' ? ` (user ${kyc.userActivated ? 'activated' : 'not activated'})` : ''),
      ]);
      return 0;
    },
  },
  {
    group: 'kyc',
    action: 'rfi',
    args: ['userId'],
    flags: {
      distributor: { kind: 'text', required: true, valueName: 'distributorId' },
      env: { kind: 'text', required: true, choices: ENVIRONMENTS },
      subtype: { kind: 'text', required: true, choices: RFI_SUBTYPES },
    },
    description:
      'Raise a Request for Information on a user (compliance). The user answers through the printed link; ' +
      'a declined or unanswered RFI freezes an active user.',
    async run(context, { args, flags }) {
      const service = await openKyc(context);
      const { kyc, accessUrl } = await service.raiseRfi(
        {
          distributorId: flags.requiredText('distributor'),
          environment: flags.requiredText('env') as Environment,
          requestId: newId('cli'),
        },
        args.userId,
        flags.requiredText('subtype') as RfiSubtype,
      );
      await print(context, { ...kyc, access: { url: accessUrl } }, () => [
        `Raised RFI ${kyc.id} (${kyc.rfiSubtype}) on user ${kyc.userId}`,
        `  link         ${accessUrl}`,
        `  expires      ${kyc.linkExpiresAt}`,
      ]);
      return 0;
    },
  },
];
