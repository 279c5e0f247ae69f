// e2e specs start a whole platform (every context, its stores and the sandbox card network) in their
// hooks, and int specs open stores, start Nest apps or run the CLI in process: on a busy 2-core machine
// (CI runs two jest workers beside the browser tests) that takes more than jest's default 5 s. A budget,
// not a timed assertion: a test still fails on what it asserts.
jest.setTimeout(20_000);
