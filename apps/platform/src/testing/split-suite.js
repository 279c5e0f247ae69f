// The e2e specs the `e2e-split` jest project runs against the split topology (E2E_TOPOLOGY=split: one
// process per service behind the gateway); every spec also runs in the `e2e` project on the one-process
// platform. One line per spec: a spec is here once it passes on both. Specs not here, with why, below.
// How to port one: docs in apps/platform/src/testing/platform-harness.ts (h.url, h.distributorId,
// h.operatorAdmin, h.newDistributor, h.signInStaff; itOnOneProcess for a test that needs h.platform).
module.exports = {
  ported: ['apps/platform/src/users.e2e.spec.ts'],
  // Not (yet) on the split topology, and why.
  notPorted: {},
};
