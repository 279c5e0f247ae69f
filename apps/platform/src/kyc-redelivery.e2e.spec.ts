import { KYC_USER_DIRECTORY, kycEffectCause, KycUserDirectory } from '@cip/kyc/service';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { openSplitInfrastructure } from './testing/split-engines';
import { waitFor } from '@cip/shared/testing';
import { changeUserStatusAsOperator } from './testing/cardholders';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { itOnOneProcess } from './testing/topology';

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
    distributorId: h.distributorId,
    environment: 'sandbox' as const,
    requestId: 'op-1',
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

  /** An RFI raised by staff (operator API), completed and declined: the saga then freezes the user. */
  const declinedRfi = async (userId: string) => {
    const raised = await h.operatorHttp
      .post(`/operator/v1/environments/sandbox/users/${userId}/rfis`)
      .set((await h.operatorAdmin()).headers)
      .set(json)
      .send({ rfiSubtype: 'transaction_monitoring', reason: 'AML-1' });
    expect(raised.status).toBe(201);
    await simulate(raised.body.kyc.id, 'complete');
    await simulate(raised.body.kyc.id, 'decline');
  };
  const frozen = (userId: string, what: string) =>
    waitFor(async () => (await getUser(userId)).status === 'frozen', { what });

  it('a replayed RFI decline does not freeze again a user that support has unfrozen', async () => {
    const { userId } = await verifiedUser();
    await declinedRfi(userId);
    await frozen(userId, 'the user frozen by the declined RFI');

    expect((await changeUserStatusAsOperator(h, userId, 'active', 'support cleared the RFI')).status).toBe(
      200,
    );

    // The crash before the commit, replayed: stop the platform, rewind the saga's group, start again.
    await h.close({ keepData: true });
    const offline = await openSplitInfrastructure(h.dataDir);
    try {
      await offline.scope('sandbox').bus.resetGroup(RFI_SAGA_GROUP, ['kyc']);
    } finally {
      await offline.close();
    }
    h = await startHarness({ dataDir: h.dataDir });
    // A barrier: the saga reads the kyc log in order, so once a later RFI decline (another user's) has
    // frozen its user, the replayed one has been handled too.
    const sentinel = await verifiedUser();
    await declinedRfi(sentinel.userId);
    await frozen(sentinel.userId, "the sentinel's RFI decline handled after the replay");

    expect((await getUser(userId)).status).toBe('active');
    expect(await userEvents(userId, 'user.frozen')).toHaveLength(1);
  });

  itOnOneProcess(
    'replays what the KYC saga asks of the users context (KycUserDirectory, in process)',
    'a retried activation for a verified KYC does not activate again a user that support has frozen',
    async () => {
      const { userId, kycId } = await verifiedUser();
      expect(
        (await changeUserStatusAsOperator(h, userId, 'frozen', 'support: suspicious activity')).status,
      ).toBe(200);

      // What a review retried after a crash between the activation and `kyc.verified` asks of the users context.
      const users = h.platform.app.get<symbol, KycUserDirectory>(KYC_USER_DIRECTORY, { strict: false });
      await users.activateUser(scope(), userId, `KYC ${kycId} verified`, kycEffectCause(kycId, 'verified'));
      await settled();

      expect((await getUser(userId)).status).toBe('frozen');
      expect(await userEvents(userId, 'user.activated')).toHaveLength(1);
    },
  );
});
