import { RecentServerErrors } from './recent-server-errors';

const error = (at: string, n = 0) => ({
  at,
  method: 'GET',
  route: '/v1/users',
  status: 500,
  requestId: `req_${n}`,
});

describe('recent server errors', () => {
  it('counts the last hour and keeps the last ten, newest first', () => {
    const errors = new RecentServerErrors();
    errors.record(error('2026-01-01T09:00:00.000Z', 0));
    for (let n = 1; n <= 12; n++) errors.record(error('2026-01-01T10:30:00.000Z', n));
    const summary = errors.summary(new Date('2026-01-01T10:45:00.000Z'));
    expect(summary.lastHour).toBe(12);
    expect(summary.last.map((e) => e.requestId)).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((n) => `req_${n}`),
    );
    expect(errors.summary(new Date('2026-01-01T11:31:00.000Z')).lastHour).toBe(0);
  });
});
