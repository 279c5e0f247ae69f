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
