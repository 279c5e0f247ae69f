// e2e specs start a whole platform (every context, its stores and the sandbox card network) in their
// hooks, and some run the built CLI as processes: on a busy 2-core machine that takes more than jest's
// default 5 s. A budget, not a timed assertion: a test still fails on what it asserts.
jest.setTimeout(20_000);
