import { KYC_USER_DIRECTORY, kycEffectCause, KycService, KycUserDirectory } from '@cip/kyc/service';
import { ConsumerHost, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { UsersService } from '@cip/users/service';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

const RFI_SAGA_GROUP = 'saga.kyc-rfi-outcomes';
const json = { 'content-type': 'application/json' };
const sandbox = { 'x-api-key': SANDBOX_KEY };

/**
 * The KYC outcomes' effects on the user are applied once per cause. The platform can crash after an
 * effect and before the consumer commits its offset; by the time the event is delivered again, support
 * may have changed the user's status back. The redelivery must not undo support's decision.
 */
describe('KYC effects on the user survive redelivery after support changed the user', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const scope = () => ({
    distributorId: h.platform.distributorId,
    environment: 'sandbox' as const,
    requestId: 'op-1',
  });
  const support = () => ({
    ...scope(),
    program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
  });
  const simulate = async (kycId: string, outcome: string) =>
    expect(
      (
        await h.http
          .post(`/v1/simulate/kyc/${kycId}/${outcome}`)
          .set({ ...sandbox, ...json })
          .send({})
      ).status,
    ).toBe(200);
  const getUser = async (userId: string) => (await h.http.get(`/v1/users/${userId}`).set(sandbox)).body;
  const userEvents = async (userId: string, eventName: string) =>
    (await h.http.get('/v1/events').query({ limit: 100, userId, eventName }).set(sandbox)).body.items;
  const settled = () => h.platform.app.get(ConsumerHost).drain('sandbox');

  /** A user activated by a verified full KYC; returns the user and that KYC. */
  const verifiedUser = async () => {
    const created = await h.http
      .post('/v1/users')
      .set({ ...sandbox, ...json })
      .send(newUserBody());
    const kyc = await h.http
      .put('/v1/kycs')
      .set({ ...sandbox, ...json })
      .send({ userId: created.body.id, type: 'full' });
    expect(kyc.status).toBe(201);
    await simulate(kyc.body.id, 'complete');
    await simulate(kyc.body.id, 'approve');
    expect((await getUser(created.body.id)).status).toBe('active');
    return { userId: created.body.id as string, kycId: kyc.body.id as string };
  };

  it('a replayed RFI decline does not freeze again a user that support has unfrozen', async () => {
    const { userId } = await verifiedUser();
    const { kyc: rfi } = await h.platform.app
      .get(KycService)
      .raiseRfi(scope(), userId, 'transaction_monitoring');
    await simulate(rfi.id, 'complete');
    await simulate(rfi.id, 'decline');
    await settled();
    expect((await getUser(userId)).status).toBe('frozen');

    await h.platform.app
      .get(UsersService)
      .changeStatus(support(), userId, 'active', 'support cleared the RFI');

    // The crash before the commit, replayed: stop the platform, rewind the saga's group, start again.
    await h.close({ keepData: true });
    const offline = openEmbeddedInfrastructure({ dataDir: h.dataDir });
    try {
      await offline.scope('sandbox').bus.resetGroup(RFI_SAGA_GROUP, ['kyc']);
    } finally {
      await offline.close();
    }
    h = await startHarness({ dataDir: h.dataDir });
    await settled();

    expect((await getUser(userId)).status).toBe('active');
    expect(await userEvents(userId, 'user.frozen')).toHaveLength(1);
  });

  it('a retried activation for a verified KYC does not activate again a user that support has frozen', async () => {
    const { userId, kycId } = await verifiedUser();
    await h.platform.app
      .get(UsersService)
      .changeStatus(support(), userId, 'frozen', 'support: suspicious activity');

    // What a review retried after a crash between the activation and `kyc.verified` asks of the users context.
    const users = h.platform.app.get<symbol, KycUserDirectory>(KYC_USER_DIRECTORY, { strict: false });
    await users.activateUser(scope(), userId, `KYC ${kycId} verified`, kycEffectCause(kycId, 'verified'));
    await settled();

    expect((await getUser(userId)).status).toBe('frozen');
    expect(await userEvents(userId, 'user.activated')).toHaveLength(1);
  });
});
