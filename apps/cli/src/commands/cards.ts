import { CARD_HOLDS, type CardHold, type CardView, renderCard } from '@cip/cards/contract';
import { CardOperationsService } from '@cip/cards/service';
import type { Environment } from '@cip/shared/contracts';
import { environmentStores } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { Command, Option } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print } from '../command';
import { environmentOption, nonEmpty } from '../options';

/**
 * The cards context's operator API over the data directory's event store. Every change is decided by the
 * card decider on the card's stream (a concurrent change by the platform is retried on the fresh stream);
 * the running platform's consumers pick the events up (card.frozen, card.unblocked webhooks).
 */
export function openCardOperations(context: CommandContext): CardOperationsService {
  return new CardOperationsService(environmentStores(context.infrastructure()), systemClock);
}

const cardLines = (card: CardView, done: string) => [
  `Card ${card.id} of ${card.userId}: ${card.status} (${done})`,
  `  blocks  ${card.blocks.length > 0 ? card.blocks.join(', ') : 'none'}`,
];

interface OperatorOptions {
  env: Environment;
  reason: string;
  operator?: string;
}

const reasonOption = () =>
  new Option('--reason <text>', 'why: a ticket or case reference, recorded on the card (nothing personal)')
    .argParser(nonEmpty)
    .makeOptionMandatory();

const operatorOption = () =>
  new Option('--operator <name>', 'who acts, recorded on the card (default: the login running the CLI)');

const actionOf = (context: CommandContext, options: OperatorOptions) => ({
  operator: options.operator ?? context.io.env.USER ?? 'unknown',
  reason: options.reason,
});

export function registerCardCommands(program: Command, cli: Cli): void {
  const cards = commandGroup(
    program,
    'cards',
    'Operator actions on cards: compliance and fraud holds, the wrong PIN/CVV2 block.',
  );
  const holds = cards
    .command('hold')
    .description(
      "Compliance and fraud holds: a held card is frozen and its distributor's unfreeze is refused " +
        '(409 card_unfreeze_blocked_error) until the hold is lifted.',
    );

  // `hold place` and `hold lift` take the same arguments; each is one call of the operator API.
  const holdCommand = (
    name: 'place' | 'lift',
    done: 'placed' | 'lifted',
    description: string,
    example: string,
    change: (
      operations: CardOperationsService,
      ...args: Parameters<CardOperationsService['placeHold']>
    ) => Promise<CardView>,
  ) =>
    holds
      .command(name)
      .description(description)
      .argument('<cardId>', 'the card (crd-...)')
      .addOption(environmentOption())
      .addOption(new Option('--hold <hold>', 'which hold').choices(CARD_HOLDS).makeOptionMandatory())
      .addOption(reasonOption())
      .addOption(operatorOption())
      .addHelpText('after', examples(example))
      .action(
        cli.action<OperatorOptions & { hold: CardHold }>(async (context, { args: [cardId], options }) => {
          const card = await change(
            openCardOperations(context),
            options.env,
            cardId,
            options.hold,
            actionOf(context, options),
          );
          await print(context, renderCard(card), () => cardLines(card, `${options.hold} ${done}`));
          return 0;
        }),
      );

  holdCommand(
    'place',
    'placed',
    'Place a hold: an active card is frozen (card.frozen); a frozen or not yet activated card gets the ' +
      'block only. A hold the card has already changes nothing. Revoked cards are refused.',
    'cards hold place crd-... --env production --hold compliance_hold --reason "CMP-118"',
    (operations, ...args) => operations.placeHold(...args),
  );
  holdCommand(
    'lift',
    'lifted',
    'Lift a hold: the card stays frozen; its distributor unfreezes it once no other block remains. ' +
      'Lifting a hold the card does not have is refused.',
    'cards hold lift crd-... --env production --hold compliance_hold --reason "CMP-118 cleared"',
    (operations, ...args) => operations.liftHold(...args),
  );

  cards
    .command('unblock')
    .description(
      'Lift the block of three consecutive wrong PIN/CVV2 entries (card.unblocked): the card is active ' +
        'again if the block froze it and no other block remains, else it stays frozen.',
    )
    .argument('<cardId>', 'the card (crd-...)')
    .addOption(environmentOption())
    .addOption(reasonOption())
    .addOption(operatorOption())
    .addHelpText(
      'after',
      examples('cards unblock crd-... --env production --reason "Cardholder identified, ticket 4711"'),
    )
    .action(
      cli.action<OperatorOptions>(async (context, { args: [cardId], options }) => {
        const card = await openCardOperations(context).unblockCard(
          options.env,
          cardId,
          actionOf(context, options),
        );
        await print(context, renderCard(card), () => cardLines(card, 'unblocked'));
        return 0;
      }),
    );
}
