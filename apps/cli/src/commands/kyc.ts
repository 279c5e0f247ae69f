import { RFI_SUBTYPES, RfiSubtype } from '@cip/kyc/domain';
import { KYC_LINK_KEY_SECRET, KycService, KycUserDirectory, SandboxIdentityProvider } from '@cip/kyc/service';
import { DomainError, Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import { loadOrCreateSecret, newId, systemClock } from '@cip/shared/runtime';
import { UsersService } from '@cip/users/service';
import { randomBytes } from 'node:crypto';
import { Command, CommandContext, print } from '../command';
import { existingDistributor, openControlPlane } from './control-plane';

/**
 * The KYC service over the data directory's stores, for operator actions. Raising an RFI only looks the
 * user up; the effects on users (freezing after a declined or expired RFI) are the platform's saga, so the
 * user directory here refuses them rather than act outside the running platform.
 */
async function openKyc(context: CommandContext): Promise<KycService> {
  const infrastructure = context.infrastructure();
  const users = new UsersService(
    {
      eventStore: (environment: Environment) => infrastructure.scope(environment).eventStore,
      readStore: (environment: Environment) => infrastructure.scope(environment).readStore,
      settle: async () => undefined,
    },
    systemClock,
  );
  const { directory } = await openControlPlane(context);
  const notFromTheCli = async () => {
    throw new Error('User effects of KYC run in the platform, not in the CLI');
  };
  const lookup: KycUserDirectory = {
    async findUser(scope, userId) {
      const program = existingDistributor(directory, scope.distributorId).program;
      try {
        const user = await users.getUser({ ...scope, program }, userId);
        return {
          userId: user.id,
          status: user.status,
          firstName: user.firstName,
          lastName: user.lastName,
          countryOfResidence: user.countryOfResidence,
        };
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found') return null;
        throw error;
      }
    },
    activateUser: notFromTheCli,
    freezeUser: notFromTheCli,
    setShippingAddress: notFromTheCli,
  };
  const provider = new SandboxIdentityProvider(
    loadOrCreateSecret({
      dataDir: context.dataDir,
      name: KYC_LINK_KEY_SECRET,
      fromEnv: context.io.env.KYC_LINK_SECRET,
      generate: () => randomBytes(32).toString('base64url'),
    }),
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
