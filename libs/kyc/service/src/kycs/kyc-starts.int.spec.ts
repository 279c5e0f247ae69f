import { kycStartClaimsStream } from '@cip/kyc/domain';
import { kycsProjection } from '@cip/kyc/read-models';
import type { Caller } from '@cip/shared/contracts';
import { categoryOf, handleCommand, callerContext } from '@cip/shared/eventing';
import {
  applyToProjection,
  environmentStores,
  Infrastructure,
  openEmbeddedInfrastructure,
} from '@cip/shared/infrastructure';
import { ManualClock, newId } from '@cip/shared/runtime';
import { kycDecider } from '@cip/kyc/domain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KycUserDirectory } from '../kyc.ports';
import { KycService } from '../kyc.service';
import { SandboxIdentityProvider } from '../sandbox-provider/sandbox-identity-provider';

const caller: Caller = {
  distributorId: 'dst-kyc-starts',
  environment: 'sandbox',
  requestId: 'req-1',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
};

const users: KycUserDirectory = {
  findUser: async (_, userId) => ({
    userId,
    status: 'onboarding',
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
  }),
  activateUser: async () => undefined,
  freezeUser: async () => undefined,
  setShippingAddress: async () => undefined,
};

// Replicas of the KYC service: each its own KycService (its own in-process ordering of starts) over the
// same stores, as two pods over one EventStoreDB and one MongoDB.
describe('starts of hosted KYCs across replicas of the KYC service', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  const clock = new ManualClock(new Date('2026-11-27T10:00:00Z'));

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-kyc-starts-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir });
  });
  afterEach(async () => {
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sandbox = () => infrastructure.scope('sandbox');
  /** The KYC list's projection, brought up to the log as the consumers would (shared by the replicas). */
  const settle = async () =>
    applyToProjection(
      kycsProjection,
      sandbox().readStore,
      (await sandbox().eventStore.readAll({ after: 0, maxCount: 100_000 })).filter(
        (event) => categoryOf(event.streamId) === 'kyc',
      ),
    );
  const replica = () => {
    const provider = new SandboxIdentityProvider('a-link-key-for-the-kyc-starts-spec');
    provider.usePublicBaseUrl('http://127.0.0.1:3000');
    return new KycService(
      { ...environmentStores(infrastructure), settle, users, provider, hostedFlow: provider },
      clock,
    );
  };
  const statusesOf = async (service: KycService, ids: string[]) =>
    Promise.all(ids.map(async (id) => (await service.getKyc(caller, id)).kyc.status));

  it('leaves one pending link when starts of one user come at once to two replicas', async () => {
    const replicas = [replica(), replica()];
    const userId = newId('usr');
    const started = await Promise.all(
      Array.from({ length: 12 }, (_, i) => replicas[i % 2].startHostedKyc(caller, { userId, type: 'full' })),
    );
    const statuses = await statusesOf(
      replicas[0],
      started.map((started) => started.kyc.id),
    );
    expect(statuses.filter((status) => status === 'pending')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'revoked')).toHaveLength(11);
    // The one left open is the last start's, as the claims order them.
    const claims = await sandbox().eventStore.readStream(kycStartClaimsStream(userId, 'full'));
    const last = claims[claims.length - 1].data as { kycId: string };
    expect(statuses[started.findIndex((one) => one.kyc.id === last.kycId)]).toBe('pending');
    // Another kind is not touched by them.
    const shipping = await replicas[1].startHostedKyc(caller, { userId, type: 'shipping' });
    expect(await statusesOf(replicas[0], [shipping.kyc.id, last.kycId])).toEqual(['pending', 'pending']);
  });

  it('closes a pending KYC started before the claims existed', async () => {
    const userId = newId('usr');
    const legacyId = newId('kyc');
    const service = replica();
    await handleCommand(
      sandbox().eventStore,
      kycDecider,
      legacyId,
      {
        type: 'StartKyc',
        data: {
          kycId: legacyId,
          userId,
          distributorId: caller.distributorId,
          kycType: 'full',
          provider: 'sandbox',
          referenceId: 'ref-legacy',
          importEnabled: false,
          now: clock.now().toISOString(),
        },
      },
      callerContext(clock.now(), caller),
    );
    expect(await statusesOf(service, [legacyId])).toEqual(['pending']);
    const next = await service.startHostedKyc(caller, { userId, type: 'full' });
    expect(await statusesOf(service, [legacyId, next.kyc.id])).toEqual(['revoked', 'pending']);
  });
});
