import { AUTHORIZATIONS_OPTIONS, type AuthorizationsModuleOptions } from '@cip/authorizations/service';
import { platformServiceApp, serviceClients } from '@cip/platform/composition';
import {
  NON_SCHEMA_VARIABLES,
  PLATFORM_APPS,
  PLATFORM_SERVICES,
  requiredVariables,
  SERVICE_HOST_VARIABLES,
  SERVICE_PORT_VARIABLES,
  variablesReadBy,
} from '@cip/platform/registry';
import { PLATFORM_VARIABLES, readPlatformConfig } from '@cip/shared/runtime';

// What the specs of docker-compose.yml and the Helm chart check the deployment files against: the table of
// what each app reads (PLATFORM_APP_VARIABLES, libs/platform/registry, which the split launcher builds each
// process's environment from too), itself checked against the code: a variable the table names that no code
// reads (the configuration schema, PLATFORM_VARIABLES, or NON_SCHEMA_VARIABLES) fails the specs, as does a
// deployment file giving an app a variable outside its row, or leaving out a required one.

export const SERVICES = PLATFORM_SERVICES.map((service) => service.name);
export const APPS = PLATFORM_APPS;
export const tcpPortOf = (service: string): number =>
  PLATFORM_SERVICES.find((candidate) => candidate.name === service)?.tcpPort ?? NaN;

/** An app's environment (`names`, as compose or the chart sets it) has every variable its row requires, and none it does not read. */
export function expectVariablesOfApp(app: string, names: string[]): void {
  expect({ app, missing: requiredVariables(app).filter((name) => !names.includes(name)) }).toEqual({
    app,
    missing: [],
  });
  expect({ app, unread: names.filter((name) => !variablesReadBy(app, 'distributed').has(name)) }).toEqual({
    app,
    unread: [],
  });
}

/** Variables of the table that no code reads (empty unless the table or the code drifted). */
export function unreadVariables(): string[] {
  const read = new Set([
    ...PLATFORM_VARIABLES,
    ...NON_SCHEMA_VARIABLES,
    ...SERVICE_HOST_VARIABLES,
    ...SERVICE_PORT_VARIABLES,
  ]);
  const named = APPS.flatMap((app) => [
    ...variablesReadBy(app, 'distributed'),
    ...variablesReadBy(app, 'embedded'),
  ]);
  return [...new Set(named)].filter((name) => !read.has(name));
}

/**
 * What an app started with this environment would do, read by the code itself: where it reaches every
 * service (`platformServiceApp` for a service, `serviceClients` for the gateway and the dashboard; the relay
 * reaches none) and, for authorizations, the card network it links to. Throws a ConfigError for a value the
 * configuration schema refuses.
 */
export function composedApp(
  app: string,
  env: Record<string, string>,
): { remotes: Record<string, string>; cardNetwork?: string } {
  readPlatformConfig(env);
  if (app === 'relay') return { remotes: {} };
  const service = SERVICES.includes(app) ? platformServiceApp(app, env) : null;
  const remotes = Object.fromEntries(
    (service?.remotes ?? serviceClients(null, env)).map((remote) => [
      remote.service,
      `${remote.host}:${remote.port}`,
    ]),
  );
  const authorizations = (service?.providers ?? []).find(
    (provider) => (provider as { provide?: unknown }).provide === AUTHORIZATIONS_OPTIONS,
  ) as { useValue: AuthorizationsModuleOptions } | undefined;
  const network = authorizations?.useValue.network;
  return { remotes, cardNetwork: network ? `${network.host}:${network.port}` : undefined };
}

/** Where `app` should reach every other service: `<host of service>:<its PLATFORM_SERVICES port>`. */
export function expectedRemotes(app: string, hostOf: (service: string) => string): Record<string, string> {
  return Object.fromEntries(
    SERVICES.filter((service) => service !== app).map((service) => [
      service,
      `${hostOf(service)}:${tcpPortOf(service)}`,
    ]),
  );
}
