import { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { userActivated } from '@cip/users/contract';
import { WalletsService } from '../wallets.service';

/**
 * Spec part 1: each activated user gets exactly one wallet. Provisioning is idempotent (the wallet id is
 * derived from the user id, an active wallet is returned as it is), so a redelivered activation, or a
 * second activation after a freeze, changes nothing.
 */
export const walletProvisioningSaga = defineSaga<readonly [typeof userActivated], [WalletsService]>({
  // The group name predates the saga folder: renaming it would replay every activation from the start.
  group: 'wallets.provisioning',
  on: [userActivated],
  inject: [WalletsService],
  async handle([wallets], event, ports) {
    await wallets.provisionWallet(ports.scope as Environment, {
      userId: event.data.userId,
      distributorId: event.metadata.distributorId ?? '',
      causationId: event.metadata.eventId,
    });
  },
});
