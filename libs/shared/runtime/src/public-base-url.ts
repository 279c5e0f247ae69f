/** What decides the address of the platform: PUBLIC_BASE_URL, HOST and PORT (`PlatformConfig`). */
export interface PublicAddressSettings {
  publicBaseUrl?: string;
  host: string;
  port: number;
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The URL a server listening on `host:port` is reached at from this machine: an address that listens on
 * every interface is reached as localhost; an IPv6 address is bracketed.
 */
export function listenUrl(host: string, port: number): string {
  const name = WILDCARD_HOSTS.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * The address users reach the platform at, which the links it hands out start with (hosted KYC and RFI
 * pages): PUBLIC_BASE_URL when set, else the URL the platform listens on. The platform and the CLI both
 * take it from here, so a link an operator prints is the link the platform serves. `listeningPort` is the
 * port actually bound (PORT=0 binds any free one, which only the platform knows).
 */
export function publicBaseUrl(settings: PublicAddressSettings, listeningPort = settings.port): string {
  if (settings.publicBaseUrl) return settings.publicBaseUrl.replace(/\/+$/, '');
  return listenUrl(settings.host, listeningPort);
}

/**
 * Where staff reach the dashboard (the operator app), which invitation links start with: DASHBOARD_PUBLIC_URL
 * when set, else the URL the operator app listens on (DASHBOARD_PORT; `listeningPort` when bound to 0).
 */
export function dashboardBaseUrl(
  settings: { dashboardPublicUrl?: string; host: string; dashboardPort: number },
  listeningPort = settings.dashboardPort,
): string {
  return publicBaseUrl(
    { publicBaseUrl: settings.dashboardPublicUrl, host: settings.host, port: settings.dashboardPort },
    listeningPort,
  );
}
