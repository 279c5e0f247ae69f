import type { DecidedBy, DecisioningOnTimeout } from '@cip/authorizations/contract';

// ---------------------------------------------------------------------------------------------------
// What the distributor's answer means for a payment (pure: the service makes the call and hands the
// outcome here). A 2xx with `{ "decision": "approve" | "decline", "amount"?: <minor units> }` decides;
// anything else (another status, a body that is not that JSON object, an amount that is not a positive
// integer up to the requested amount) is an error, and errors and timeouts apply the configured
// `onTimeout`.
// ---------------------------------------------------------------------------------------------------

/** The distributor's part of a decision, recorded in the authorization's facts. */
export interface DistributorVerdict {
  decidedBy: Exclude<DecidedBy, 'platform'>;
  decision: 'approve' | 'decline';
  /**
   * A partial approval: the minor units the distributor approved, below the requested amount. The policy
   * confirms it for a USD merchant (network response code 10, the approved amount in DE-004) and declines
   * it otherwise (`partialCharge`).
   */
  amount?: number;
  /** For operators and logs (why it fell back to `onTimeout`, or that the distributor declined). */
  detail: string;
}

/** What came back from the distributor's endpoint. */
export type DistributorReply =
  | { kind: 'answered'; statusCode: number; body: string }
  | { kind: 'timeout' }
  | { kind: 'unreachable'; reason: string }
  /** The endpoint's circuit breaker is open: it kept failing, so it is not called for now. */
  | { kind: 'circuitOpen' };

const fallback = (onTimeout: DecisioningOnTimeout, detail: string): DistributorVerdict => ({
  decidedBy: 'distributorTimeout',
  decision: onTimeout,
  detail,
});

/** Reads the distributor's reply for a payment of `requested` minor units. */
export function readDistributorReply(
  reply: DistributorReply,
  requested: number,
  onTimeout: DecisioningOnTimeout,
): DistributorVerdict {
  switch (reply.kind) {
    case 'timeout':
      return fallback(onTimeout, 'distributor did not answer in time');
    case 'unreachable':
      return fallback(onTimeout, `distributor unreachable: ${reply.reason}`);
    case 'circuitOpen':
      return fallback(onTimeout, 'distributor endpoint is failing (circuit open)');
    case 'answered':
      break;
  }
  if (reply.statusCode < 200 || reply.statusCode >= 300) {
    return fallback(onTimeout, `distributor answered HTTP ${reply.statusCode}`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(reply.body);
  } catch {
    return fallback(onTimeout, 'distributor answer is not JSON');
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    return fallback(onTimeout, 'distributor answer is not a JSON object');
  }
  const { decision, amount } = answer as { decision?: unknown; amount?: unknown };
  if (decision === 'decline') {
    return { decidedBy: 'distributor', decision: 'decline', detail: 'declined by the distributor' };
  }
  if (decision !== 'approve') {
    return fallback(onTimeout, 'distributor answer has no decision "approve" or "decline"');
  }
  if (amount === undefined || amount === requested) {
    return { decidedBy: 'distributor', decision: 'approve', detail: 'approved by the distributor' };
  }
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || amount > requested) {
    return fallback(onTimeout, `distributor amount must be a positive integer up to ${requested}`);
  }
  return {
    decidedBy: 'distributor',
    decision: 'approve',
    amount,
    detail: `partially approved by the distributor (${amount} of ${requested})`,
  };
}
