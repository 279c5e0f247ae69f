import type { INestApplicationContext } from '@nestjs/common';
import { CardRevealService } from '@cip/cards/service';
import { SandboxIdentityProvider } from '@cip/kyc/service';
import type { ContextDefinition } from '@cip/shared/infrastructure';
import { ThreeDsServerSimulator } from '@cip/simulator/service';
import { ThreeDsService } from '@cip/three-ds/service';

/** The addresses the contexts' links and sandbox messages start with, known once the gateway listens. */
export interface PublicAddresses {
  /** Where users reach the gateway (PUBLIC_BASE_URL): hosted KYC pages, card reveal links, 3DS challenges. */
  publicBaseUrl: string;
  /** Where the sandbox 3DS server posts AReqs (THREE_DS_BASE_URL, else the gateway's ACS path). */
  acsBaseUrl: string;
  /** Where the sandbox 3DS server's simulated directory server takes RReqs (the gateway's path). */
  dsBaseUrl: string;
}

const WIRING: Record<string, (app: INestApplicationContext, addresses: PublicAddresses) => void> = {
  kyc: (app, { publicBaseUrl }) => app.get(SandboxIdentityProvider).usePublicBaseUrl(publicBaseUrl),
  cards: (app, { publicBaseUrl }) => app.get(CardRevealService).usePublicBaseUrl(publicBaseUrl),
  'three-ds': (app, { publicBaseUrl }) => app.get(ThreeDsService).useChallengeBaseUrl(publicBaseUrl),
  simulator: (app, { acsBaseUrl, dsBaseUrl }) =>
    app.get(ThreeDsServerSimulator).useAddresses({ acsBaseUrl, dsBaseUrl }),
};

/** Gives the hosted contexts the public addresses (the embedded platform once listening, a service at start). */
export function usePublicAddresses(
  app: INestApplicationContext,
  contexts: readonly ContextDefinition[],
  addresses: PublicAddresses,
): void {
  for (const context of contexts) WIRING[context.name]?.(app, addresses);
}
