import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import { TOKENIZATION_TOPIC, type TokenView } from '@cip/tokenization/contract';
import { evolveToken, isToken, tokenEvents, TokenRecord, TokenState } from '@cip/tokenization/domain';

export const toTokenView = (token: TokenRecord): TokenView => ({
  id: token.tokenId,
  distributorId: token.distributorId,
  cardId: token.cardId,
  userId: token.userId,
  digitalWalletName: token.digitalWalletName,
  tokenReferenceId: token.tokenReferenceId,
  provisioning: token.provisioning,
  status: token.status,
  createdAt: token.createdAt,
  updatedAt: token.updatedAt,
});

/** Back from the view to the decider's state, so the projection folds with the domain's own evolve. */
function toState(view: TokenView | null): TokenState {
  if (!view) return { status: 'absent' };
  const { id, ...rest } = view;
  // `activated` only decides where a resumed token goes: the projection takes it from the resume event.
  return { ...rest, tokenId: id, activated: view.status === 'active' };
}

/** The `tokens` read model: one document per token stream, for a card's token list (`cardId`). */
export const tokensProjection: Projection<TokenView> = {
  name: 'tokens',
  collection: 'tokens',
  topics: [TOKENIZATION_TOPIC],
  evolve(doc: TokenView | null, event: ProjectedEvent): TokenView | null {
    const state = evolveToken(toState(doc), tokenEvents.read(event));
    return isToken(state) ? toTokenView(state) : null;
  },
};
