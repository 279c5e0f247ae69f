/**
 * Contract suites run against every adapter of a port. The embedded adapters always run; the ones that
 * need a server (EventStoreDB, Kafka, MongoDB) run when their URL is set and otherwise say, on the
 * test output, that they are skipped and why (never silently).
 */
export function describeWhenConfigured(
  variable: 'EVENTSTORE_URL' | 'KAFKA_BROKERS' | 'MONGO_URL' | 'DATABASE_URL',
  title: string,
  body: (url: string) => void,
): void {
  const url = process.env[variable];
  if (url) {
    describe(title, () => body(url));
    return;
  }
  const reason = `${title}: skipped because ${variable} is not set (docker compose up -d eventstore kafka mongo, then export the URLs from docker-compose.yml)`;
  process.stdout.write(`SKIP ${reason}\n`);
  const skipped = describe.skip;
  skipped(`${title} (${variable} not set)`, () => {
    it('runs when the server is configured', () => undefined);
  });
}
