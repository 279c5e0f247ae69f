import { AUTHORIZATIONS_TOPIC } from '@cip/authorizations/contract';
import type { AuthorizationEvent } from '@cip/authorizations/domain';
import { integrationEvent, type Environment, type IntegrationEvent } from '@cip/shared/contracts';
import type { RecordedEvent } from '@cip/shared/eventing';
import { defineSaga } from '@cip/shared/infrastructure';
import { AuthorizationsService } from './authorizations.service';

/** The consumer group of the ledger saga (its offset is how far the log's ledger work is certainly done). */
export const AUTHORIZATION_LEDGER_GROUP = 'saga.authorizations-ledger';

/** Every event of an authorization stream, as recorded: each may carry ledger instructions. */
const RECORDED: readonly AuthorizationEvent['type'][] = [
  'AuthorizationDecided',
  'AuthorizationForcePosted',
  'AuthorizationCleared',
  'AuthorizationReversed',
  'AuthorizationExpired',
  'AuthorizationAbandoned',
];

/**
 * The outbox of the authorizations context's money movements: each authorization event's ledger
 * instructions are carried out on the wallet by the process that recorded it, right after the append; this
 * saga follows the log and carries out those a crash left undone (the service skips what it did inline). It
 * reacts to the context's own events, not another context's: the append is the commitment, the wallet
 * follows it exactly once per instruction (the ledger's ids), in log order.
 */
export const authorizationLedgerSaga = defineSaga({
  group: AUTHORIZATION_LEDGER_GROUP,
  on: RECORDED.map((type) => integrationEvent<IntegrationEvent<typeof type>>(AUTHORIZATIONS_TOPIC, type)),
  inject: [AuthorizationsService],
  async handle([authorizations]: [AuthorizationsService], event, ports) {
    await authorizations.carryOutRecorded(ports.scope as Environment, event as unknown as RecordedEvent);
  },
});
