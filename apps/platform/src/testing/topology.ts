import { join, relative } from 'node:path';

const SPLIT_SUITE = require('./split-suite.js') as { onPostgres: string[] };

/**
 * The topology the e2e specs run against, from E2E_TOPOLOGY: `one-process` (default: `npm start`, the `e2e`
 * jest project) or `split` (one process per service behind the gateway, `npm run start:split`: the
 * `e2e-split` project, which runs the specs listed in split-suite.js).
 */
export type E2eTopology = 'one-process' | 'split';

export function e2eTopology(): E2eTopology {
  const value = process.env.E2E_TOPOLOGY || 'one-process';
  if (value !== 'one-process' && value !== 'split') {
    throw new Error(`E2E_TOPOLOGY must be one-process or split, got "${value}"`);
  }
  return value;
}

/**
 * Says on the test output that a test is skipped on the split topology, and why (never silently), as the
 * server-backed contract suites do (`describeWhenConfigured`'s SKIP lines); returns the name it is skipped under.
 */
function skippedOnSplit(why: string, name: string): string {
  process.stdout.write(`SKIP ${name}: one-process only on the split topology (${why})\n`);
  return `${name} [one-process only: ${why}]`;
}

/**
 * A test that needs the in-process platform (`h.platform`: an injected clock, a service or a consumer host
 * the API does not reach), in a spec that otherwise runs on both topologies: it runs on the one-process
 * platform and is reported skipped on the split one. `why` says what it needs, for the reader.
 */
export function itOnOneProcess(
  why: string,
  name: string,
  test: jest.ProvidesCallback,
  timeoutMs?: number,
): void {
  if (e2eTopology() === 'split') it.skip(skippedOnSplit(why, name), test, timeoutMs);
  else it(name, test, timeoutMs);
}

/** `describe` for a block of such tests (see itOnOneProcess). */
export function describeOnOneProcess(why: string, name: string, block: () => void): void {
  if (e2eTopology() === 'split') describe.skip(skippedOnSplit(why, name), block);
  else describe(name, block);
}

/**
 * The stores the split topology runs on for the spec being run: `postgres` (PostgreSQL and Kafka, a database
 * and a topic prefix of each spec file's own on the servers of DATABASE_URL and KAFKA_BROKERS, as CI runs
 * it) for the specs of split-suite.js's `onPostgres` when both are set, else `embedded` (the processes share
 * SQLite files under the data directory). CI must run those on the real engines.
 */
export function splitStoreDriver(): 'postgres' | 'embedded' {
  const path = expect.getState().testPath;
  const spec = path ? relative(join(__dirname, '../../../..'), path) : '';
  if (!(SPLIT_SUITE.onPostgres as string[]).includes(spec)) return 'embedded';
  if (process.env.DATABASE_URL && process.env.KAFKA_BROKERS) return 'postgres';
  if (process.env.CI === 'true') {
    throw new Error(
      'CI runs the split topology on PostgreSQL and Kafka: DATABASE_URL and KAFKA_BROKERS must be set ' +
        '(.ci/run starts them with tools/ci/postgres.sh and tools/ci/kafka.sh)',
    );
  }
  return 'embedded';
}

/**
 * A test that reads the embedded runtime's files under the data directory (SQLite stores, the CLI's
 * commands over them), in a spec that otherwise runs on every topology: skipped, and said so, on the split
 * topology over PostgreSQL, where those stores are not files. `why` says what it reads.
 */
export function itOnEmbeddedStores(
  why: string,
  name: string,
  test: jest.ProvidesCallback,
  timeoutMs?: number,
): void {
  if (e2eTopology() === 'split' && splitStoreDriver() === 'postgres') {
    process.stdout.write(`SKIP ${name}: embedded stores only (${why})\n`);
    it.skip(`${name} [embedded stores only: ${why}]`, test, timeoutMs);
  } else it(name, test, timeoutMs);
}
