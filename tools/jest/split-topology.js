// Setup of the e2e-split project: the same spec files as the e2e project, run against the split topology
// (one process per service behind the gateway; startHarness reads E2E_TOPOLOGY). Each spec file starts its
// own topology (a dozen node processes, ~40 s of CPU) in its hooks, which on a busy 2-core machine takes
// minutes, not the e2e project's 20 s: a budget, not a timed assertion.
process.env.E2E_TOPOLOGY = 'split';
jest.setTimeout(240_000);

// A hook that timed out while its topology was still starting leaves the processes running: stop them.
afterAll(async () => {
  const { closeLeftoverTopologies } = require('../../apps/platform/src/testing/platform-harness');
  await closeLeftoverTopologies();
});
