/** A term of a lease: the holder's, until it lapses or is released. */
export interface LeaseTerm {
  /**
   * Increases with every new term (the lease was free, expired or released when it was granted); stays the
   * same while its holder renews it. A writer that fences its effects with it is refused once another holds it.
   */
  fencingToken: number;
}

/**
 * Named leases, one holder each at a time: what elects the one process of a deployment that runs a singleton
 * role (the webhook dispatcher). Expiry is judged by the store's clock where it has one (PostgreSQL, MongoDB),
 * so the processes' clocks do not have to agree.
 */
export interface Leases {
  /**
   * Grants `name` to `holder` for `ttlMs` when it is free, expired, or already `holder`'s (a renewal, which
   * extends it from now); null when another holder's term is running.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<LeaseTerm | null>;
  /** Ends `holder`'s term at once (the next acquire by anyone starts a new term); nothing if not its holder. */
  release(name: string, holder: string): Promise<void>;
}
