import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  expectVariablesOfApp,
  APPS,
  composedApp,
  expectedRemotes,
  SERVICES,
  unreadVariables,
} from './app-variables';
import { appVariables, SERVICE_HOST_VARIABLES } from '@cip/platform/registry';

// docker-compose.yml, checked the way `docker compose config` would resolve it (YAML merge keys and anchors)
// since CI has no compose engine: every app of the repository (PLATFORM_SERVICES, the gateway, the
// dashboard, the relay) is there from the one image, with exactly the variables it reads
// (PLATFORM_APP_VARIABLES in libs/platform/registry), valid for the configuration schema, every service
// reached at its compose name as the code reads the addresses, the keys it would make kept on a volume, a healthcheck on its
// /health, and a start order that only waits on services that have a healthcheck and never on itself.
const root = join(__dirname, '..', '..');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
const SERVERS = ['eventstore', 'kafka', 'mongo'];
const HTTP_PORTS: Record<string, { env: string; port: number }> = {
  gateway: { env: 'PORT', port: 3000 },
  dashboard: { env: 'DASHBOARD_PORT', port: 3001 },
};

/** An app's environment as compose hands it over: `${NAME:-default}` with nothing set in the shell. */
function environmentOf(app: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(compose.services[app].environment ?? {}).map(([name, value]) => [
      name,
      String(value).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

describe('docker-compose.yml', () => {
  it('runs the three servers and every app of the repository, and nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVERS, ...APPS].sort());
  });

  it('names only variables some code reads', () => {
    expect(unreadVariables()).toEqual([]);
  });

  it.each(APPS)('runs %s from the one image with exactly the variables it reads', (app) => {
    const service = compose.services[app];
    expect(service).toMatchObject({
      image: 'cip-platform:local',
      build: { context: '.', dockerfile: 'deploy/Dockerfile' },
      command: ['node', `dist/apps/${app}/src/main.js`],
      environment: expect.objectContaining({
        EVENTSTORE_URL: expect.stringMatching(/^esdb:\/\/eventstore:2113/),
        KAFKA_BROKERS: 'kafka:19092',
        MONGO_URL: expect.stringMatching(/^mongodb:\/\/mongo:27017\/\?replicaSet=rs0/),
      }),
    });
    const environment = environmentOf(app);
    const row = appVariables(app);
    const names = Object.keys(environment);
    expectVariablesOfApp(app, names);
    if (row.links) expect(environment.PUBLIC_BASE_URL).toBe('http://localhost:3000');
    if (app !== 'relay') expect(environment.STORE_DRIVER).toBe('distributed');
  });

  it.each(APPS)('gives %s values its configuration accepts', (app) => {
    expect(() => composedApp(app, environmentOf(app))).not.toThrow();
  });

  it.each(APPS.filter((app) => app !== 'relay'))(
    'has %s reach every service at its compose name and PLATFORM_SERVICES port, as the code reads them',
    (app) => {
      const environment = environmentOf(app);
      expect(SERVICE_HOST_VARIABLES.filter((name) => !environment[name])).toEqual([]);
      expect(composedApp(app, environment).remotes).toEqual(expectedRemotes(app, (service) => service));
    },
  );

  it('keeps the keys a service makes on first start (unless given) on a named volume', () => {
    const unkept = APPS.flatMap((app) => {
      const environment = environmentOf(app);
      const onVolume = (compose.services[app].volumes ?? []).some((volume) => volume.endsWith(':/data'));
      const made = (appVariables(app).keys ?? []).filter((key) => !environment[key]);
      return made.length > 0 && !onVolume ? [`${app}: ${made.join(', ')}`] : [];
    });
    expect(unkept).toEqual([]);
    // The simulator's journals and the tokenization service's Google Pay keys have no variable.
    for (const app of ['simulator', 'tokenization']) {
      expect(compose.services[app].volumes).toEqual([`${app}-data:/data`]);
    }
  });

  it.each(APPS)('checks the health of %s on /health of its HTTP port', (app) => {
    const environment = environmentOf(app);
    const http = HTTP_PORTS[app];
    const port = http?.port ?? 9464;
    expect(Number(environment[http?.env ?? 'METRICS_PORT'])).toBe(port);
    expect(compose.services[app].healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/health'`);
  });

  it('starts an app only once what it depends on is healthy, with no cycle', () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        if (!compose.services[dependency]) problems.push(`${name} -> ${dependency}: no such service`);
        else if (condition !== 'service_healthy') problems.push(`${name} -> ${dependency}: ${condition}`);
        else if (!compose.services[dependency].healthcheck) problems.push(`${dependency}: no healthcheck`);
      }
    }
    // Depth-first walk: a dependency met again while still on the path is a cycle.
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, path: string[]) => {
      if (done.has(name)) return;
      if (visiting.has(name)) return void problems.push(`cycle: ${[...path, name].join(' -> ')}`);
      visiting.add(name);
      for (const dependency of Object.keys(compose.services[name]?.depends_on ?? {})) {
        visit(dependency, [...path, name]);
      }
      visiting.delete(name);
      done.add(name);
    };
    Object.keys(compose.services).forEach((name) => visit(name, []));
    expect(problems).toEqual([]);
    // The gateway takes requests only once every service can answer them.
    expect(Object.keys(compose.services.gateway.depends_on ?? {}).sort()).toEqual(
      [...SERVERS, 'relay', ...SERVICES].sort(),
    );
  });

  it('declares every named volume the apps mount', () => {
    const mounted = Object.values(compose.services)
      .flatMap((service) => service.volumes ?? [])
      .map((volume) => volume.split(':')[0]);
    expect(mounted.filter((volume) => !(volume in (compose.volumes ?? {})))).toEqual([]);
  });

  it('links the issuer to the simulator’s ISO 8583 listener, and the sandbox 3DS server to the gateway', () => {
    const simulator = environmentOf('simulator');
    const { cardNetwork } = composedApp('authorizations', environmentOf('authorizations'));
    expect(cardNetwork).toBe(`simulator:${simulator.SIMULATOR_ISO_PORT}`);
    expect(simulator.GATEWAY_URL).toBe(`http://gateway:${environmentOf('gateway').PORT}`);
  });
});
