// The service table's contexts are Nest modules: their decorators need the metadata polyfill loaded first.
import 'reflect-metadata';
import { resolve } from 'node:path';
import { SplitStoreDriver, startSplitTopology } from '@cip/platform/topologies';

// ---------------------------------------------------------------------------------------------------
// `npm run start:split`: the platform as one process per service on this host (README "Which runtime?").
// DATA_DIR (default ./data, like npm start's), SPLIT_STORE_DRIVER=embedded (default), postgres (with
// DATABASE_URL, KAFKA_BROKERS) or distributed (with EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); the server
// drivers start the relay too, BOOTSTRAP_SANDBOX_API_KEY (default:
// one kept under DATA_DIR/secrets). Ports are those of PLATFORM_SERVICES, PORT 3000 and DASHBOARD_PORT
// 3001 for the gateway and the dashboard (each variable overrides its port), or free ones below the kernel's
// ephemeral range with SPLIT_PORTS=free. Each process writes to DATA_DIR/logs/<name>.log.
// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = performance.now();
  const driver = (process.env.SPLIT_STORE_DRIVER || 'embedded') as SplitStoreDriver;
  if (driver !== 'embedded' && driver !== 'postgres' && driver !== 'distributed') {
    throw new Error(`SPLIT_STORE_DRIVER must be embedded, postgres or distributed, got "${driver}"`);
  }
  const dataDir = resolve(process.env.DATA_DIR || './data');
  const topology = await startSplitTopology({
    dataDir,
    driver,
    sandboxKey: process.env.BOOTSTRAP_SANDBOX_API_KEY || undefined,
    ports: process.env.SPLIT_PORTS === 'free' ? 'free' : 'table',
    onExit: ({ name }, code, signal) =>
      process.stderr.write(`${name} exited (${code ?? signal}); the other processes keep running\n`),
  });
  const width = Math.max(...topology.services.map((s) => s.name.length));
  const lines = [
    `Card-issuing platform (split: one process per service, ${driver} stores) listening on ${topology.gatewayUrl}`,
    `  data directory   ${dataDir} (logs in ${resolve(dataDir, 'logs')})`,
    `  API docs         ${topology.gatewayUrl}/v1/docs`,
    `  dashboard        ${topology.dashboardUrl}`,
    `  sandbox API key  ${topology.sandboxKey}`,
    ...topology.services.map((s) => {
      const ports = [
        s.ports.tcp && `tcp ${s.ports.tcp}`,
        s.ports.http && `http ${s.ports.http}`,
        `health ${s.ports.health}`,
      ].filter(Boolean);
      return `  ${s.name.padEnd(width)}  pid ${String(s.pid).padEnd(7)} ${ports.join(', ')}`;
    }),
    `  started in ${Math.round(performance.now() - startedAt)} ms; Ctrl-C stops every process`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping every process\n`);
    await topology.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(
    `The split platform failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
