import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// docker-compose.yml, checked the way `docker compose config` would resolve it (YAML merge keys and anchors)
// since CI has no compose engine: every app of the Helm chart's table is there from the one image, on the
// distributed driver, with the addresses of every service, a healthcheck on its /health, and a start order
// that only waits on services that have a healthcheck and never on itself.
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
const chart = parse(readFileSync(join(root, 'helm/card-issuing-platform/values.yaml'), 'utf8')) as {
  services: Record<string, { tcpPort?: number; httpPort?: number; httpPortEnv?: string }>;
};
const APPS = Object.keys(chart.services);
const SERVICES = APPS.filter((name) => chart.services[name].tcpPort);
const SERVERS = ['eventstore', 'kafka', 'mongo'];
const prefix = (name: string) => name.toUpperCase().replace(/-/g, '_');

describe('docker-compose.yml', () => {
  it('runs the three servers and every app of the chart, and nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVERS, ...APPS].sort());
  });

  it.each(APPS)('runs %s from the one image on the distributed driver', (app) => {
    const service = compose.services[app];
    expect(service).toMatchObject({
      image: 'cip-platform:local',
      build: { context: '.', dockerfile: 'deploy/Dockerfile' },
      command: ['node', `dist/apps/${app}/src/main.js`],
      environment: expect.objectContaining({
        STORE_DRIVER: 'distributed',
        EVENTSTORE_URL: expect.stringMatching(/^esdb:\/\/eventstore:2113/),
        KAFKA_BROKERS: 'kafka:19092',
        MONGO_URL: expect.stringMatching(/^mongodb:\/\/mongo:27017\/\?replicaSet=rs0/),
        PERSONAL_DATA_MASTER_KEY: expect.any(String),
      }),
    });
  });

  it.each(APPS)('gives %s the address of every service', (app) => {
    const environment = compose.services[app].environment ?? {};
    for (const service of SERVICES) {
      expect({ service, host: environment[`${prefix(service)}_HOST`] }).toEqual({ service, host: service });
      expect({ service, port: Number(environment[`${prefix(service)}_TCP_PORT`]) }).toEqual({
        service,
        port: chart.services[service].tcpPort,
      });
    }
  });

  it.each(APPS)('checks the health of %s on /health of its HTTP port', (app) => {
    const { httpPort, httpPortEnv } = chart.services[app];
    const environment = compose.services[app].environment ?? {};
    const port = httpPort ?? 9464;
    if (httpPortEnv) expect(Number(environment[httpPortEnv])).toBe(httpPort);
    else expect(Number(environment.METRICS_PORT)).toBe(9464);
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
      expect.arrayContaining([...SERVERS, 'relay', ...SERVICES].sort()),
    );
  });

  it('declares every named volume the apps mount', () => {
    const mounted = Object.values(compose.services)
      .flatMap((service) => service.volumes ?? [])
      .map((volume) => volume.split(':')[0]);
    expect(mounted.filter((volume) => !(volume in (compose.volumes ?? {})))).toEqual([]);
  });

  it('points the issuer at the simulator’s ISO 8583 listener', () => {
    const simulatorPort = compose.services.simulator.environment?.SIMULATOR_ISO_PORT;
    expect(compose.services.authorizations.environment?.CARD_NETWORK_ISO_ADDRESS).toBe(
      `simulator:${simulatorPort}`,
    );
  });
});
