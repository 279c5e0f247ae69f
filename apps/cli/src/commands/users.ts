import type { Environment } from '@cip/shared/contracts';
import { environmentStores } from '@cip/shared/infrastructure';
import { clockFromEnvironment } from '@cip/shared/runtime';
import type { UserView } from '@cip/users/contract';
import { UsersService } from '@cip/users/service';
import { Command, Option } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print } from '../command';
import { environmentOption, nonEmpty } from '../options';
import { openControlPlane, operatorCaller } from './control-plane';

/**
 * The users service over the data directory's stores, for operator actions. Lists never wait for the
 * platform's projections from here: the CLI runs none.
 */
export function openUsers(context: CommandContext): UsersService {
  return new UsersService(
    { ...environmentStores(context.infrastructure()), settle: async () => undefined },
    clockFromEnvironment(),
  );
}

export interface EraseUserRequest {
  userId: string;
  environment: Environment;
  /** Why (the request's reference, e.g. a ticket): recorded in `UserErased`, so never personal data. */
  reason: string;
  /** Who: the operator's name as the platform user's login, unless given. */
  operator: string;
}

/**
 * Erases a user's personal data (a data subject's erasure request; UsersService.eraseUser): the user, as
 * it is read after, is a pseudonymous record. The user's distributor is found from the user itself, so the
 * operator only names the user.
 */
export async function eraseUser(context: CommandContext, request: EraseUserRequest): Promise<UserView> {
  const users = openUsers(context);
  const { directory } = await openControlPlane(context);
  const owner = await users.ownerOf(request.environment, request.userId);
  return users.eraseUser(operatorCaller(directory, owner, request.environment), request.userId, {
    erasedBy: `operator:${request.operator}`,
    reason: request.reason,
  });
}

export function registerUserCommands(program: Command, cli: Cli): void {
  const users = commandGroup(program, 'users', 'Operator actions on users (data subject requests).');

  users
    .command('erase')
    .description(
      "Erase a user's personal data at the person's request: an open user is deleted, its key destroyed; " +
        'it stays as a pseudonymous record. --reason is recorded: a ticket reference, nothing personal.',
    )
    .addOption(new Option('--user <userId>', 'the user to erase (usr-...)').makeOptionMandatory())
    .addOption(
      new Option('--reason <text>', 'why: a ticket reference, recorded in UserErased').makeOptionMandatory(),
    )
    .addOption(environmentOption())
    .option('--operator <name>', 'who asks (default: the login running the CLI)')
    .addHelpText('after', examples('users erase --user usr-... --reason "DSR-2026-0042" --env production'))
    .action(
      cli.action<{ user: string; reason: string; env: Environment; operator?: string }>(
        async (context, { options }) => {
          const user = await eraseUser(context, {
            userId: options.user,
            environment: options.env,
            reason: nonEmpty(options.reason),
            operator: options.operator ?? context.io.env.USER ?? 'unknown',
          });
          await print(context, user, () => [
            `User ${user.id} is erased (${user.status}): its personal data can no longer be read`,
          ]);
          return 0;
        },
      ),
    );
}
