import { PLATFORM_CONTEXTS, PLATFORM_SERVICES, serviceAddress } from './index';

// The split platform runs what the embedded one runs: a context no service hosts would answer 503 forever,
// one hosted twice would run its consumers (and sagas) twice.
describe('PLATFORM_SERVICES', () => {
  it('hosts every registered context in exactly one service', () => {
    const hosted = PLATFORM_SERVICES.flatMap((service) => service.contexts.map((context) => context.name));
    expect([...hosted].sort()).toEqual(PLATFORM_CONTEXTS.map((context) => context.name).sort());
  });

  it('gives each service a port of its own, which <SERVICE>_HOST and <SERVICE>_TCP_PORT override', () => {
    const ports = PLATFORM_SERVICES.map((service) => service.tcpPort);
    expect(new Set(ports).size).toBe(ports.length);
    expect(serviceAddress('three-ds', {})).toEqual({ host: 'localhost', port: 4090 });
    expect(serviceAddress('three-ds', { THREE_DS_HOST: 'acs', THREE_DS_TCP_PORT: '5090' })).toEqual({
      host: 'acs',
      port: 5090,
    });
    expect(() => serviceAddress('users', { USERS_TCP_PORT: 'x' })).toThrow('USERS_TCP_PORT must be a port');
    expect(() => serviceAddress('gateway', {})).toThrow('No service named gateway');
  });
});
