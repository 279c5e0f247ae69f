// The e2e specs the `e2e-split` jest project runs against the split topology (E2E_TOPOLOGY=split: one
// process per service behind the gateway, `npm run start:split`); each also runs in the `e2e` project on
// the one-process platform: one spec, two topologies. A spec is listed once it passes on both; tests that
// need the in-process platform are `itOnOneProcess`/`describeOnOneProcess` (testing/topology.ts), noted
// after the path. How to port one: the harness operations in testing/platform-harness.ts.
module.exports = {
  ported: [
    'apps/platform/src/users.e2e.spec.ts', // status changes one-process only (no operator surface)
    'apps/platform/src/cards.e2e.spec.ts', // the user-stopped-cards saga one-process only (same)
    'apps/platform/src/webhooks.e2e.spec.ts',
    'apps/platform/src/authorization-decisioning.e2e.spec.ts',
    'apps/platform/src/card-payments-journey.e2e.spec.ts',
    'apps/platform/src/three-ds-authorization.e2e.spec.ts',
    'apps/platform/src/authorization-simulations-pin.e2e.spec.ts',
    'apps/platform/src/authorization-simulations.e2e.spec.ts', // tests playing the issuer one-process only
    'apps/platform/src/card-holds.e2e.spec.ts', // PIN/CVV2 records through the cards contract one-process only
    'apps/platform/src/authorization-clearing.e2e.spec.ts', // re-delivering a file one-process only
    'apps/platform/src/authorization-program-settings.e2e.spec.ts', // re-importing a file one-process only
  ],
  // Specs not (yet) on the split topology, each with why (path: reason).
  notPorted: {
    'apps/platform/src/authorizations.e2e.spec.ts':
      "the test's IsoServer plays the card network (cardNetwork) and a ManualClock drives hold expiry",
    'apps/platform/src/three-ds.e2e.spec.ts':
      'a ManualClock (expiresAt, the fail-closed sweep) and an in-process logger; not ported yet otherwise',
    'apps/platform/src/settlement.e2e.spec.ts':
      'SettlementRunner.runNow and batch details in process (the CLI cuts batches; not ported yet)',
  },
};
