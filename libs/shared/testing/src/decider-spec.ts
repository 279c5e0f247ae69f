import type { Decider, DomainEvent } from '@cip/shared/contracts';

/**
 * Given/when/then for deciders: given past events, when a command, then the new events (or an error).
 *
 *   const spec = deciderSpec(userDecider);
 *   spec.given([created]).when(freeze).then([{ type: 'UserFrozen', data: … }]);
 */
export function deciderSpec<Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
) {
  return {
    given(events: Event[]) {
      return {
        when(command: Command) {
          const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]): void {
              expect(run()).toEqual(expected);
            },
            thenNothing(): void {
              expect(run()).toEqual([]);
            },
            thenThrows(code: string, message?: RegExp): void {
              let caught: unknown;
              try {
                run();
              } catch (error) {
                caught = error;
              }
              expect(caught).toMatchObject({ code });
              if (message) expect((caught as Error).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
