import { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { cardAuthenticationDecided } from '@cip/three-ds/contract';
import { ThreeDsService } from '../three-ds.service';

const EVENTS = [cardAuthenticationDecided] as const;

/**
 * A decided challenge (accepted, rejected, expired) completes its EMV transaction: the RReq goes to the
 * directory server until it answers with an RRes. A consumer group of its own, so a decision recorded just
 * before a crash is still sent after the restart; an acknowledged one is not sent twice.
 */
export const cardAuthenticationResultsSaga = defineSaga<typeof EVENTS, [ThreeDsService]>({
  group: 'saga.three-ds-results',
  on: EVENTS,
  inject: [ThreeDsService],
  async handle([threeDs], event, ports) {
    await threeDs.notifyResult(
      ports.scope as Environment,
      event.data.cardAuthenticationId,
      event.metadata.eventId,
    );
  },
});
