import { type Decider, type DomainEvent, domainEventReader } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// Clearing exceptions: a line of an imported clearing file that could not apply (unknown authorization or
// card, beyond the program's tolerance, already closed). The other lines of the file still apply; each
// exception is recorded on its own stream, `clx-<fileId>-<sequence>`, so operators can list them (`npm run
// cli -- authorizations clearing-exceptions`) and a file imported again records nothing twice. No card data:
// the card is named by its id, the presentment by its network keys (acquirer, RRN, approval code).
// ---------------------------------------------------------------------------------------------------

/** The category of clearing exception streams. */
export const CLEARING_EXCEPTIONS_TOPIC = 'clx';
export const clearingExceptionStreamId = (fileId: string, sequence: number) =>
  `${CLEARING_EXCEPTIONS_TOPIC}-${fileId}-${sequence}`;

// A type, not an interface: event data must be assignable to a JSON object (Record<string, unknown>).
export type ClearingException = {
  fileId: string;
  sequence: number;
  kind: 'presentment' | 'force_post';
  acquirerId: string;
  rrn: string;
  approvalCode: string;
  cardId: string;
  /** Minor units of `currency`, as the file presents it. */
  amountMinor: number;
  currency: string;
  merchantName: string;
  presentedAt: string;
  /** The refusal's error code (`not_found`, `validation_error`, `invalid_state_transition`, ...). */
  code: string;
  /** Why the line could not apply, as the decision engine said it. */
  reason: string;
};

export type ClearingExceptionRecorded = DomainEvent<
  'ClearingExceptionRecorded',
  ClearingException & { recordedAt: string }
>;
export type ClearingExceptionEvent = ClearingExceptionRecorded;
export const clearingExceptionEvents = domainEventReader<ClearingExceptionEvent>();

export interface RecordClearingException {
  type: 'RecordClearingException';
  data: { exception: ClearingException; now: string };
}

export type ClearingExceptionState = { recorded: false } | { recorded: true; exception: ClearingException };

/** Records a line's exception once: the same line of a file imported again changes nothing. */
export const clearingExceptionDecider: Decider<
  RecordClearingException,
  ClearingExceptionEvent,
  ClearingExceptionState
> = {
  decide: (command, state) =>
    state.recorded
      ? []
      : [
          {
            type: 'ClearingExceptionRecorded',
            data: { ...command.data.exception, recordedAt: command.data.now },
          },
        ],
  evolve: (_state, event) => {
    const { recordedAt: _at, ...exception } = event.data;
    return { recorded: true, exception };
  },
  initialState: () => ({ recorded: false }),
  events: clearingExceptionEvents,
};
