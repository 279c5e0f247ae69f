import { CARDS_OPTIONS } from '@cip/cards/service';
import { PLATFORM_SERVICES, PUBLIC_EVENT_MAPPERS } from '@cip/platform/registry';
import { join } from 'node:path';
import { platformServiceApp } from './platform-service-app';

describe('platformServiceApp', () => {
  const env = {
    STORE_DRIVER: 'embedded',
    DATA_DIR: '/srv/cip',
    KYC_HOST: 'kyc.internal',
    KYC_TCP_PORT: '5020',
  };

  it("hosts the service's contexts and reaches every other service at its address", () => {
    const cards = platformServiceApp('cards', env);
    expect(cards.contexts.map((context) => context.name)).toEqual(['cards']);
    expect(cards.tcpPort).toEqual({ env: 'CARDS_TCP_PORT', default: 4030 });
    expect(cards.remotes?.map((remote) => remote.service)).toEqual(
      PLATFORM_SERVICES.map((service) => service.name).filter((name) => name !== 'cards'),
    );
    expect(cards.remotes?.find((remote) => remote.service === 'kyc')).toMatchObject({
      host: 'kyc.internal',
      port: 5020,
    });
    expect(cards.remotes?.find((remote) => remote.service === 'three-ds')).toMatchObject({
      host: 'localhost',
      port: 4090,
    });
  });

  it("gives the hosted contexts their options only, and the card vaults' files to the embedded checkpointer", () => {
    const cards = platformServiceApp('cards', env);
    expect(cards.providers?.map((provider) => (provider as { provide: symbol }).provide)).toEqual([
      CARDS_OPTIONS,
    ]);
    expect(cards.checkpointedFiles).toEqual([
      join('/srv/cip', 'sandbox-vault.sqlite'),
      join('/srv/cip', 'production-vault.sqlite'),
    ]);
    expect(platformServiceApp('cards', { ...env, STORE_DRIVER: 'distributed' }).checkpointedFiles).toEqual(
      [],
    );
    expect(platformServiceApp('users', env).providers).toEqual([]);
  });

  it("records and delivers every context's public Events in the webhooks service", () => {
    const webhooks = platformServiceApp('webhooks', env);
    expect(webhooks.contexts.map((context) => context.name)).toEqual(['webhooks', 'events']);
    expect(webhooks.publicEvents).toBe(PUBLIC_EVENT_MAPPERS);
  });

  it('refuses a service the table does not have', () => {
    expect(() => platformServiceApp('gateway', env)).toThrow('No service named gateway');
  });
});
