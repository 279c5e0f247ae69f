/**
 * Contract suites run against every adapter of a port. The embedded adapters always run; the ones that
 * need a server (EventStoreDB, Kafka, MongoDB, PostgreSQL) run when their URL is set. Otherwise:
 * - PostgreSQL and Kafka run in CI itself (.ci/run starts them with tools/ci/postgres.sh and
 *   tools/ci/kafka.sh): with CI=true a missing DATABASE_URL or KAFKA_BROKERS fails the run, with a test
 *   naming the variable, so that their suites can never pass by not running.
 * - EventStoreDB and MongoDB cannot run on CI's machines (they run in the public distributed workflow):
 *   their suites, like every suite outside CI, say on the test output that they are skipped and why
 *   (never silently).
 */
export type ServerVariable = 'DATABASE_URL' | 'EVENTSTORE_URL' | 'KAFKA_BROKERS' | 'MONGO_URL';

/** The servers CI starts itself: their suites must run there. */
export const SERVERS_CI_RUNS: readonly ServerVariable[] = ['DATABASE_URL', 'KAFKA_BROKERS'];

const HOW_TO_START: Record<ServerVariable, string> = {
  DATABASE_URL: 'bash tools/ci/postgres.sh start, then export the DATABASE_URL it prints',
  KAFKA_BROKERS: 'bash tools/ci/kafka.sh start, then export the KAFKA_BROKERS it prints',
  EVENTSTORE_URL: 'docker compose up -d eventstore, then export the URL from docker-compose.yml',
  MONGO_URL: 'docker compose up -d mongo, then export the URL from docker-compose.yml',
};

export function describeWhenConfigured(
  variable: ServerVariable,
  title: string,
  body: (url: string) => void,
): void {
  const url = process.env[variable];
  if (url) {
    describe(title, () => body(url));
    return;
  }
  if (process.env.CI === 'true' && SERVERS_CI_RUNS.includes(variable)) {
    describe(title, () => {
      it(`needs ${variable}, which CI must set`, () => {
        throw new Error(
          `${variable} is not set, and CI runs this suite on a real server (${HOW_TO_START[variable]})`,
        );
      });
    });
    return;
  }
  const reason = `${title}: skipped because ${variable} is not set (${HOW_TO_START[variable]})`;
  process.stdout.write(`SKIP ${reason}\n`);
  const skipped = describe.skip;
  skipped(`${title} (${variable} not set)`, () => {
    it('runs when the server is configured', () => undefined);
  });
}
