import type { ScopePorts } from '@cip/shared/infrastructure';
import { loadState } from '@cip/shared/eventing';
import { walletDecider } from '@cip/wallets/domain';
import { fundedCardholder, type jsonCaller } from './kill-nine';

// The ledger checks the kill -9 and failure drill specs share: what a wallet holds against what its card
// authorizations say, over HTTP (as a distributor sees it) and in the store itself.

type Call = ReturnType<typeof jsonCaller>;

export type AuthorizationItem = {
  id: string;
  status: string;
  type: string;
  amount: number;
  clearedAmount: number;
  [field: string]: unknown;
};

/** Every authorization of a card, every page read. */
export async function authorizationsOf(call: Call, cardId: string): Promise<AuthorizationItem[]> {
  const all: AuthorizationItem[] = [];
  for (let fromPage = 0; ; fromPage++) {
    const page = await call('GET', `/v1/authorizations?cardId=${cardId}&limit=100&fromPage=${fromPage}`);
    if (page.status !== 200) throw new Error(`GET /v1/authorizations answered ${page.status}`);
    all.push(...(page.body.items as AuthorizationItem[]));
    if (!page.body.hasMore) return all;
  }
}

export const cents = (usd: number) => Math.round(usd * 100);

/**
 * The ledger identity of one wallet, as a distributor sees it: what it holds equals the holds of its confirmed,
 * uncleared authorizations (USD payments carry no fee in the sandbox program: a hold is the amount). Cents.
 */
export async function identityOf(call: Call, walletId: string, cardIds: string[]) {
  const wallet = await call('GET', `/v1/wallets/${walletId}`);
  if (wallet.status !== 200) throw new Error(`GET /v1/wallets/${walletId} answered ${wallet.status}`);
  const { balance, availableBalance } = wallet.body as { balance: number; availableBalance: number };
  let holds = 0;
  let refunded = 0;
  let uncredited = 0;
  for (const cardId of cardIds) {
    for (const a of await authorizationsOf(call, cardId)) {
      if (a.type === 'payment' && a.status === 'confirmed') holds += cents(a.amount);
      if (a.type === 'refund' && a.status === 'cleared') refunded += cents(a.amount);
      if (a.type === 'refund' && a.status === 'confirmed') uncredited++;
    }
  }
  return { balance: cents(balance), available: cents(availableBalance), holds, refunded, uncredited };
}

/**
 * In the store itself: the open holds of the wallets (from their event streams) and the confirmed payment
 * authorizations of their cards (from the read model), each by authorization id, in cents. Equal when every
 * confirmed, uncleared authorization has its hold and no hold exists without its authorization.
 */
export async function holdsInStore(
  scope: Pick<ScopePorts, 'eventStore' | 'readStore'>,
  wallets: readonly { walletId: string; cardIds: readonly string[] }[],
): Promise<{ open: Map<string, number>; byAuthorization: Map<string, number> }> {
  const byAuthorization = new Map<string, number>();
  for (const { cardIds } of wallets) {
    for (const cardId of cardIds) {
      const items = await scope.readStore.find<AuthorizationItem & { createdAt: string; updatedAt: string }>(
        'authorizations',
        {
          filter: { cardId },
          sort: { field: 'createdAt', direction: 'asc' },
          page: 0,
          limit: 100_000,
        },
      );
      for (const a of items.items) {
        if (a.type === 'payment' && a.status === 'confirmed') byAuthorization.set(a.id, cents(a.amount));
      }
    }
  }
  const open = new Map<string, number>();
  for (const { walletId } of wallets) {
    const { state } = await loadState(scope.eventStore, walletDecider, walletId);
    if (state.status !== 'active') throw new Error(`wallet ${walletId} is ${state.status}`);
    for (const [holdId, hold] of state.holds.entries()) {
      // An advice recorded on an abandoned authorization holds under `<authorization id>.advice` (the decider):
      // the authorization's hold all the same. Two holds of one authorization show under a key of their own.
      const authorizationId = holdId.replace(/\.advice$/, '');
      open.set(
        open.has(authorizationId) ? `${authorizationId} (twice)` : authorizationId,
        Math.round(hold.amount / 10_000),
      );
    }
  }
  return { open, byAuthorization };
}

/**
 * `count` wallets, each a funded cardholder (`fundedCardholder`, `depositUsd`) with `cardsPerWallet` virtual
 * cards: what an authorization storm runs over. E-mails `<prefix>-<n>@example.com`.
 */
export async function fundedWallets(
  call: Call,
  prefix: string,
  count: number,
  cardsPerWallet: number,
  depositUsd: number,
): Promise<{ walletId: string; cardIds: string[] }[]> {
  const wallets: { walletId: string; cardIds: string[] }[] = [];
  for (let w = 0; w < count; w++) {
    const holder = await fundedCardholder(call, `${prefix}-${w}@example.com`, depositUsd);
    const cardIds = [holder.card.id as string];
    for (let c = 1; c < cardsPerWallet; c++) {
      const card = await call('POST', '/v1/cards', { userId: holder.userId, type: 'virtual' });
      expect(card.status).toBe(201);
      cardIds.push(card.body.id as string);
    }
    wallets.push({ walletId: holder.walletId, cardIds });
  }
  return wallets;
}
