import { DomainError } from '@cip/shared/contracts';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { ManualClock, newId } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordVirtualCard } from './card.spec-fixtures';
import { CardOperationsService } from './card-operations.service';

const DISTRIBUTOR = 'dst-holds';
const OPERATOR = { operator: 'ada', reason: 'Case CMP-118' };

describe('card operations on the embedded event store', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let service: CardOperationsService;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-card-ops-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir });
    service = new CardOperationsService(environmentStores(infrastructure), new ManualClock());
  });
  afterEach(async () => {
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const store = () => infrastructure.scope('sandbox').eventStore;

  const createCard = () =>
    recordVirtualCard(store(), {
      distributorId: DISTRIBUTOR,
      userId: 'usr-1',
      now: '2026-11-23T10:00:00.000Z',
    });

  const typesOf = async (cardId: string) => (await store().readStream(cardId)).map((event) => event.type);

  it('many wrong entries recorded at once on one card block it exactly once, and every call is answered', async () => {
    const cardId = await createCard();
    // 12 authorizations fail together, and 4 of them are retried at the same moment.
    const records = Array.from({ length: 12 }, (_, i) => ({
      authorizationId: `aut-${i}`,
      method: 'pin' as const,
    }));
    const outcomes = await Promise.all(
      [...records, ...records.slice(0, 4)].map((record) =>
        service.recordVerification('sandbox', cardId, { ...record, ok: false }),
      ),
    );

    const types = await typesOf(cardId);
    expect(types.filter((type) => type === 'CardVerificationFailed')).toHaveLength(3);
    expect(types.filter((type) => type === 'CardBlocked')).toHaveLength(1);
    expect(types[types.length - 1]).toBe('CardBlocked');
    // The call whose record blocked the card says so; none saw more than three wrong entries in a row.
    expect(
      outcomes.filter((outcome) => outcome.consecutiveFailures === 3 && outcome.blocked),
    ).not.toHaveLength(0);
    expect(outcomes.every((outcome) => outcome.cardId === cardId && outcome.consecutiveFailures <= 3)).toBe(
      true,
    );
    expect(
      await service.recordVerification('sandbox', cardId, {
        authorizationId: 'aut-late',
        method: 'pin',
        ok: true,
      }),
    ).toEqual({ cardId, status: 'frozen', blocked: true, consecutiveFailures: 3 });
  });

  it('a retried record of one authorization counts once; a right entry restarts the count', async () => {
    const cardId = await createCard();
    const record = (authorizationId: string, ok: boolean) =>
      service.recordVerification('sandbox', cardId, { authorizationId, method: 'cvv2', ok });
    await record('aut-1', false);
    expect(await record('aut-1', false)).toEqual({
      cardId,
      status: 'active',
      blocked: false,
      consecutiveFailures: 1,
    });
    await record('aut-2', false);
    expect(await record('aut-3', true)).toMatchObject({ consecutiveFailures: 0, blocked: false });
    await record('aut-4', false);
    await record('aut-5', false);
    expect(await record('aut-6', false)).toEqual({
      cardId,
      status: 'frozen',
      blocked: true,
      consecutiveFailures: 3,
    });
  });

  it("holds and the unblock record the operator and reason, with the card's distributor on every event", async () => {
    const cardId = await createCard();
    const held = await service.placeHold('sandbox', cardId, 'fraud_hold', OPERATOR);
    expect(held).toMatchObject({ id: cardId, status: 'frozen', blocks: ['fraud_hold'] });
    const lifted = await service.liftHold('sandbox', cardId, 'fraud_hold', {
      operator: 'ada',
      reason: 'Cleared',
    });
    expect(lifted).toMatchObject({ status: 'frozen', blocks: [] });

    const events = await store().readStream(cardId);
    expect(events.map((event) => [event.type, event.metadata.distributorId])).toEqual([
      ['CardCreated', DISTRIBUTOR],
      ['CardFrozen', DISTRIBUTOR],
      ['CardBlockLifted', DISTRIBUTOR],
    ]);
    expect(events[1].data).toMatchObject({ block: 'fraud_hold', reason: 'Case CMP-118', by: 'operator:ada' });
    expect(events[2].data).toMatchObject({ block: 'fraud_hold', reason: 'Cleared', by: 'operator:ada' });
  });

  it('refuses an unknown card, an unknown hold, a blank reason or operator and a malformed record, recording nothing', async () => {
    const cardId = await createCard();
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: DomainError) => error.code,
      );
    expect(await refusal(service.placeHold('sandbox', newId('crd'), 'fraud_hold', OPERATOR))).toBe(
      'not_found',
    );
    // Another environment's card does not exist there.
    expect(await refusal(service.placeHold('production', cardId, 'fraud_hold', OPERATOR))).toBe('not_found');
    expect(await refusal(service.placeHold('sandbox', cardId, 'user_frozen' as never, OPERATOR))).toBe(
      'validation_error',
    );
    expect(
      await refusal(
        service.placeHold('sandbox', cardId, 'compliance_hold', { operator: 'ada', reason: '  ' }),
      ),
    ).toBe('validation_error');
    expect(
      await refusal(service.placeHold('sandbox', cardId, 'compliance_hold', { operator: '', reason: 'x' })),
    ).toBe('validation_error');
    expect(
      await refusal(
        service.recordVerification('sandbox', cardId, {
          authorizationId: 'aut-1',
          method: 'pan' as never,
          ok: false,
        }),
      ),
    ).toBe('validation_error');
    expect(
      await refusal(
        service.recordVerification('sandbox', cardId, {
          authorizationId: '',
          method: 'pin',
          ok: 'no' as never,
        }),
      ),
    ).toBe('validation_error');
    expect(await refusal(service.unblockCard('sandbox', cardId, OPERATOR))).toBe('invalid_state_transition');
    expect(await typesOf(cardId)).toEqual(['CardCreated']);
  });
});
