/**
 * A program's card authorization settings (issue 12), set by the operator with the distributor CLI and
 * read by the authorizations context at every authorization (a change applies to the next one). Every
 * figure is an integer or a decimal string, never a float. One schedule per program, for both environments:
 * a real program has one fee schedule, and the sandbox is where a distributor tries the schedule it will
 * run in production. Absent from a program (every program configured before these settings existed):
 * the defaults, `DEFAULT_PROGRAM_AUTHORIZATION` in `@cip/authorizations/contract`.
 */
export interface ProgramAuthorization {
  /**
   * The spec's `fee` object (part 6) as the program charges it, each in 6 implied decimals: `fx` is a
   * fraction of the converted amount (`20000` = 2%, charged on every non-USD merchant amount), `atm` and
   * `auth` are amounts in USD (`2500000` = 2.50 USD) charged per cash withdrawal (MCC 6011) and per
   * authorization. 0: not charged.
   */
  fees: { fx: number; atm: number; auth: number };
  /**
   * USD per one unit of a merchant currency (ISO 4217 code), as a decimal string (`{EUR: "1.08"}`). A
   * merchant currency without a rate cannot be authorized. The defaults are the sandbox's fixed test rates:
   * the platform has no market rate feed, so a program sets the rates it charges.
   */
  fxRates: Record<string, string>;
  /**
   * How far a clearing may exceed its authorization (tips, spec fact 4): a fraction of the authorized
   * amount in 6 implied decimals (`200000` = 20%), at most 100%.
   */
  clearingTolerance: number;
  /** Days an uncleared hold is kept before it lapses (1 to 30). */
  holdExpiryDays: number;
  /**
   * The EVM address cleared amounts are settled to (checksummed, EIP-55); null until the operator sets it.
   */
  settlementAddress: string | null;
}
