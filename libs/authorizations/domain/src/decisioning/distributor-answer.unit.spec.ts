import { readDistributorReply, type DistributorReply } from './distributor-answer';

const REQUESTED = 25_000_000;
const answered = (body: string, statusCode = 200): DistributorReply => ({
  kind: 'answered',
  statusCode,
  body,
});

describe("reading the distributor's decisioning reply", () => {
  it('an approval (with or without the full amount) is the distributor approving', () => {
    for (const body of ['{"decision":"approve"}', `{"decision":"approve","amount":${REQUESTED}}`]) {
      expect(readDistributorReply(answered(body), REQUESTED, 'decline')).toMatchObject({
        decidedBy: 'distributor',
        decision: 'approve',
      });
      expect(readDistributorReply(answered(body), REQUESTED, 'decline').amount).toBeUndefined();
    }
  });

  it('a decline is the distributor declining, whatever onTimeout says', () => {
    expect(readDistributorReply(answered('{"decision":"decline"}', 201), REQUESTED, 'approve')).toMatchObject(
      {
        decidedBy: 'distributor',
        decision: 'decline',
      },
    );
  });

  it('an amount below the request is a partial approval', () => {
    expect(
      readDistributorReply(answered('{"decision":"approve","amount":1000}'), REQUESTED, 'decline'),
    ).toEqual(expect.objectContaining({ decidedBy: 'distributor', decision: 'approve', amount: 1000 }));
  });

  it.each<[string, DistributorReply]>([
    ['a timeout', { kind: 'timeout' }],
    ['an unreachable endpoint', { kind: 'unreachable', reason: 'ECONNREFUSED' }],
    ['an open circuit', { kind: 'circuitOpen' }],
    ['HTTP 500', answered('{"decision":"approve"}', 500)],
    ['a redirect', answered('', 302)],
    ['malformed JSON', answered('{"decision":')],
    ['a JSON array', answered('["approve"]')],
    ['null', answered('null')],
    ['an unknown decision', answered('{"decision":"Approve"}')],
    ['no decision', answered('{}')],
    ['an amount above the request', answered(`{"decision":"approve","amount":${REQUESTED + 1}}`)],
    ['a zero amount', answered('{"decision":"approve","amount":0}')],
    ['a fractional amount', answered('{"decision":"approve","amount":10.5}')],
    ['an amount as text', answered('{"decision":"approve","amount":"1000"}')],
  ])('%s applies onTimeout', (_what, reply) => {
    for (const onTimeout of ['approve', 'decline'] as const) {
      const verdict = readDistributorReply(reply, REQUESTED, onTimeout);
      expect(verdict).toMatchObject({ decidedBy: 'distributorTimeout', decision: onTimeout });
      expect(verdict.amount).toBeUndefined();
    }
  });
});
