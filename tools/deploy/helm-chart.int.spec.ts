import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import {
  expectVariablesOfApp,
  APPS,
  composedApp,
  expectedRemotes,
  tcpPortOf,
  unreadVariables,
} from './app-variables';
import { appVariables } from '@cip/platform/registry';

// The Helm chart (helm/card-issuing-platform) as an operator installs it: `helm lint` passes and `helm
// template` renders, with the defaults and with each installation's values; every rendered manifest is valid
// against the Kubernetes schemas (kubernetes-models); every app of the repository (PLATFORM_SERVICES, the
// gateway, the dashboard, the relay) has its Deployment with its probes and exactly the variables it reads
// (PLATFORM_APP_VARIABLES in libs/platform/registry), every key it would otherwise make on its own disk
// from the Secret, and the services' addresses and the card network as the code reads them; singletons stay
// single; and no secret value sits in a values file. helm comes from tools/ci/install-helm.sh (CI puts it on PATH and sets REQUIRE_HELM=1); elsewhere, without helm, the
// rendering cases say they are skipped and why.
const root = join(__dirname, '..', '..');
const chart = join(root, 'helm', 'card-issuing-platform');
const VALUES = {
  default: [] as string[],
  sandbox: ['-f', join(chart, 'values-sandbox.yaml')],
  production: ['-f', join(chart, 'values-production.yaml')],
};
type Installation = keyof typeof VALUES;
const INSTALLATIONS = Object.keys(VALUES) as Installation[];

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  command: string[];
  ports: { name: string; containerPort: number }[];
  env: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef: { name: string; key: string; optional?: boolean } };
  }[];
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}

function helm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('helm', args, { cwd: root, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const helmAvailable = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' }).status === 0;
if (!helmAvailable && process.env.REQUIRE_HELM === '1') {
  throw new Error(
    'REQUIRE_HELM=1 but no helm on PATH: run tools/ci/install-helm.sh and put its output on PATH',
  );
}
if (!helmAvailable) {
  process.stderr.write(
    'helm-chart spec: helm is not on PATH, so lint, rendering and schema validation are skipped ' +
      '(bash tools/ci/install-helm.sh installs it; CI runs them with REQUIRE_HELM=1)\n',
  );
}
const withHelm = helmAvailable ? describe : describe.skip;

function render(installation: Installation, extra: string[] = []): Manifest[] {
  const result = helm(['template', 'cip', chart, ...VALUES[installation], ...extra]);
  if (result.status !== 0) throw new Error(`helm template (${installation}) failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** Kubernetes schema problems of the manifests (tools/deploy/validate-manifests.mjs, an ES module). */
function schemaProblems(manifests: Manifest[]): string[] {
  const result = spawnSync(process.execPath, [join(__dirname, 'validate-manifests.mjs')], {
    cwd: root,
    input: JSON.stringify(manifests),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`validate-manifests failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as string[];
}

const component = (manifest: Manifest) => manifest.metadata.labels?.['app.kubernetes.io/component'] ?? '';
const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const containerOf = (deployment: Manifest): Container =>
  (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0];

const chartValues = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as {
  services: Record<string, { singleton?: boolean; tcpPort?: number; httpPort?: number }>;
};
const CHART_APPS = Object.keys(chartValues.services).sort();
const publicBaseUrlOf = (installation: Installation): string =>
  (
    parse(
      readFileSync(
        join(chart, installation === 'default' ? 'values.yaml' : `values-${installation}.yaml`),
        'utf8',
      ),
    ) as { publicBaseUrl?: string }
  ).publicBaseUrl ?? '';
/** The plain variables of a container (secrets are references, not values). */
const plainEnv = (container: Container): Record<string, string> =>
  Object.fromEntries(
    container.env.flatMap((variable) =>
      variable.value === undefined ? [] : [[variable.name, variable.value]],
    ),
  );
const SINGLETONS = CHART_APPS.filter((name) => chartValues.services[name].singleton);

describe('Helm chart: its values', () => {
  it('deploys every app of the repository (apps/<name> with a main.ts, but the embedded platform and the CLI)', () => {
    const apps = readdirSync(join(root, 'apps')).filter(
      (name) => existsSync(join(root, 'apps', name, 'src', 'main.ts')) && !['platform', 'cli'].includes(name),
    );
    expect(apps.sort()).toEqual([...APPS].sort());
    expect(CHART_APPS).toEqual([...APPS].sort());
  });

  it('gives every service the TCP port of PLATFORM_SERVICES', () => {
    const ports = CHART_APPS.flatMap((app) => {
      const tcpPort = chartValues.services[app].tcpPort;
      return tcpPort ? [[app, tcpPort]] : [];
    });
    expect(Object.fromEntries(ports)).toEqual(
      Object.fromEntries(APPS.filter((app) => tcpPortOf(app)).map((app) => [app, tcpPortOf(app)])),
    );
  });

  it('names only variables some code reads', () => {
    expect(unreadVariables()).toEqual([]);
  });

  it('holds no secret value: secrets are named (secretEnv), their values come from the existing Secret', () => {
    // What a key, a seed, an API key or a URL with credentials looks like.
    const SECRET_LOOKING = [
      /^sk_(sandbox|live)_/,
      /^0x[0-9a-fA-F]{64}$/,
      /^[A-Za-z0-9+/]{40,}={0,2}$/,
      /^[0-9a-fA-F]{32,}$/,
      /-----BEGIN/,
      /^\w+:\/\/[^/\s:@]+:[^/\s@]+@/,
      /^(\w+ ){11,}\w+$/,
    ];
    const SECRET_NAME = /KEY|KEK|CVK|PVK|ZPK|SECRET|SEED|PASSWORD|TOKEN|_URL$/;
    const problems: string[] = [];
    const walk = (value: unknown, path: string[], file: string) => {
      if (typeof value === 'string') {
        if (SECRET_LOOKING.some((pattern) => pattern.test(value)))
          problems.push(`${file}: ${path.join('.')}`);
      } else if (value && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          // A plain `env` entry named like a secret must go through secretEnv instead (URLs of public
          // addresses excepted: those are no secret).
          const publicUrl = /^(DASHBOARD_PUBLIC_URL|PUBLIC_BASE_URL|THREE_DS_BASE_URL|GATEWAY_URL)$/.test(
            key,
          );
          if (path.at(-1) === 'env' && SECRET_NAME.test(key) && !publicUrl && child !== '') {
            problems.push(`${file}: ${[...path, key].join('.')} (a secret as a plain variable)`);
          }
          walk(child, [...path, key], file);
        }
      }
    };
    for (const file of readdirSync(chart).filter((name) => /^values.*\.yaml$/.test(name))) {
      walk(parse(readFileSync(join(chart, file), 'utf8')), [], file);
    }
    expect(problems).toEqual([]);
  });
});

withHelm('Helm chart: rendered', () => {
  it.each(INSTALLATIONS)('passes helm lint with the %s values', (installation) => {
    const result = helm(['lint', chart, ...VALUES[installation]]);
    expect({
      status: result.status,
      output: result.status === 0 ? '' : result.stdout + result.stderr,
    }).toEqual({
      status: 0,
      output: '',
    });
  });

  // Rendered once per installation, when a case first needs it (never when helm is missing).
  const cache = new Map<Installation, Manifest[]>();
  const manifestsOf = (installation: Installation): Manifest[] => {
    if (!cache.has(installation)) cache.set(installation, render(installation));
    return cache.get(installation) as Manifest[];
  };

  it.each(INSTALLATIONS)('renders manifests valid against the Kubernetes schemas (%s)', (installation) => {
    expect(manifestsOf(installation).length).toBeGreaterThan(0);
    expect(schemaProblems(manifestsOf(installation))).toEqual([]);
  });

  it('reports a manifest that breaks a Kubernetes schema (the validation is not vacuous)', () => {
    const [deployment] = ofKind(manifestsOf('default'), 'Deployment');
    const broken = structuredClone(deployment);
    (containerOf(broken).ports[0] as { containerPort: unknown }).containerPort = 'ninety';
    expect(schemaProblems([broken])).toEqual([expect.stringContaining('containerPort must be integer')]);
  });

  it.each(INSTALLATIONS)(
    'has one Deployment per app, each running its own main with its probes (%s)',
    (installation) => {
      const deployments = ofKind(manifestsOf(installation), 'Deployment');
      expect(deployments.map(component).sort()).toEqual(CHART_APPS);
      for (const deployment of deployments) {
        const app = component(deployment);
        const container = containerOf(deployment);
        expect(container.command).toEqual(['node', `dist/apps/${app}/src/main.js`]);
        expect(container.readinessProbe?.httpGet).toEqual({ path: '/health', port: 'health' });
        expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'health' });
        const health = container.ports.find((port) => port.name === 'health')?.containerPort;
        const expected = chartValues.services[app].httpPort ?? 9464;
        expect({ app, health }).toEqual({ app, health: expected });
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
      }
    },
  );

  it.each(INSTALLATIONS)('gives every app exactly the variables it reads (%s)', (installation) => {
    const publicBaseUrl = publicBaseUrlOf(installation);
    for (const deployment of ofKind(manifestsOf(installation), 'Deployment')) {
      const app = component(deployment);
      const row = appVariables(app);
      const env = containerOf(deployment).env;
      const names = env.map((variable) => variable.name);
      expectVariablesOfApp(app, names);
      // Keys a pod would otherwise make on its own disk: from the Secret, required.
      const fromSecret = env.filter((variable) => variable.valueFrom?.secretKeyRef.optional !== true);
      expect({
        app,
        notFromSecret: (row.keys ?? []).filter(
          (key) => !fromSecret.some((variable) => variable.name === key && variable.valueFrom),
        ),
      }).toEqual({ app, notFromSecret: [] });
      const links = env.find((variable) => variable.name === 'PUBLIC_BASE_URL')?.value;
      expect({ app, links }).toEqual({ app, links: row.links && publicBaseUrl ? publicBaseUrl : undefined });
      if (app !== 'relay') expect(plainEnv(containerOf(deployment)).STORE_DRIVER).toBe('distributed');
    }
  });

  it.each(INSTALLATIONS)(
    'has every app reach every service at its Service and PLATFORM_SERVICES port, as the code reads them (%s)',
    (installation) => {
      for (const deployment of ofKind(manifestsOf(installation), 'Deployment')) {
        const app = component(deployment);
        if (app === 'relay') continue;
        const { remotes } = composedApp(app, plainEnv(containerOf(deployment)));
        expect({ app, remotes }).toEqual({
          app,
          remotes: expectedRemotes(app, (service) => `cip-card-issuing-platform-${service}`),
        });
      }
    },
  );

  it.each(INSTALLATIONS)(
    'keeps singletons at one replica with no autoscaler, and rolls them with Recreate (%s)',
    (installation) => {
      const manifests = manifestsOf(installation);
      const autoscaled = ofKind(manifests, 'HorizontalPodAutoscaler').map(component);
      expect(autoscaled.filter((app) => SINGLETONS.includes(app))).toEqual([]);
      expect(ofKind(manifests, 'PodDisruptionBudget').map(component).sort()).toEqual(
        CHART_APPS.filter((app) => !SINGLETONS.includes(app)),
      );
      for (const deployment of ofKind(manifests, 'Deployment').filter((d) =>
        SINGLETONS.includes(component(d)),
      )) {
        expect({ app: component(deployment), spec: deployment.spec }).toMatchObject({
          spec: { replicas: 1, strategy: { type: 'Recreate' } },
        });
      }
    },
  );

  it('refuses a second replica of a singleton', () => {
    const result = helm(['template', 'cip', chart, '--set', 'services.relay.replicas=2']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('services.relay is a singleton');
  });

  it('takes every secret from the installation’s existing Secret, never from a value', () => {
    const secretName = (installation: Installation) =>
      (
        parse(readFileSync(join(chart, `values-${installation}.yaml`), 'utf8')) as {
          secrets: { existingSecret: string };
        }
      ).secrets.existingSecret;
    for (const installation of ['sandbox', 'production'] as const) {
      expect(ofKind(manifestsOf(installation), 'Secret')).toEqual([]);
      for (const deployment of ofKind(manifestsOf(installation), 'Deployment')) {
        const env = containerOf(deployment).env;
        for (const name of ['EVENTSTORE_URL', 'MONGO_URL', 'PERSONAL_DATA_MASTER_KEY']) {
          expect(env.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef).toEqual({
            name: secretName(installation),
            key: name,
          });
        }
      }
    }
  });

  it('links the issuer to the simulator’s ISO 8583 Service, and the sandbox 3DS server to the gateway’s', () => {
    const manifests = manifestsOf('default');
    const deployment = (app: string) =>
      containerOf(ofKind(manifests, 'Deployment').find((d) => component(d) === app) as Manifest);
    const service = (app: string) => {
      const manifest = ofKind(manifests, 'Service').find((s) => component(s) === app) as Manifest;
      const ports = (manifest.spec as { ports: { name: string; port: number }[] }).ports;
      return {
        name: manifest.metadata.name,
        port: (name: string) => ports.find((p) => p.name === name)?.port,
      };
    };
    const { cardNetwork } = composedApp('authorizations', plainEnv(deployment('authorizations')));
    expect(cardNetwork).toBe(`${service('simulator').name}:${service('simulator').port('iso')}`);
    expect(plainEnv(deployment('simulator')).GATEWAY_URL).toBe(
      `http://${service('gateway').name}:${service('gateway').port('http')}`,
    );
  });
});
