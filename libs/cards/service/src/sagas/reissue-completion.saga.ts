import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import { DomainError, type Environment } from '@cip/shared/contracts';
import { defineSaga, LOGGER } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import { CardsService } from '../cards.service';
import { cardReplaced } from './own-card-events';

/**
 * Issue 11, reissue: the reissue names the replacement on the old card first (`CardReplaced`, and for a
 * lost or stolen card its revocation in the same append), then issues and records the new card. A process
 * that dies between the two would leave the old card revoked and no new one; this saga finishes the
 * reissue from `CardReplaced`, as the call would have (the new card's id is the one the old card names, so
 * the call and the saga record it once between them).
 *
 * A replacement that can no longer be issued (the user is not active any more, a physical card has no
 * verified address left) is refused by the same rules as the call: the saga logs and leaves it, since no
 * redelivery would change that, and the distributor sees the old card with no replacement.
 */
export const reissueCompletionSaga = defineSaga<
  [typeof cardReplaced],
  [CardsService, ProgramDirectory, Logger]
>({
  group: 'saga.cards-reissue-completion',
  on: [cardReplaced],
  inject: [CardsService, PROGRAM_DIRECTORY, LOGGER],
  async handle([cards, programs, logger], event, ports) {
    const environment = ports.scope as Environment;
    const distributorId = event.metadata.distributorId ?? '';
    const program = programs.programOf(distributorId);
    if (!program) return;
    const requestId = event.metadata.correlationId ?? event.metadata.eventId;
    try {
      await cards.completeReissue({ distributorId, environment, program, requestId }, event.data.cardId);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      logger.warn(
        { cardId: event.data.cardId, replacedBy: event.data.replacedBy, code: error.code },
        'Reissue not completed: the replacement can no longer be issued',
      );
    }
  },
});
