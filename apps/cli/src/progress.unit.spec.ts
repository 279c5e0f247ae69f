import { progressLines } from './progress';

describe('progress lines', () => {
  it('prints an update only when the last line is older than the interval, and always the closing line', () => {
    let now = 0;
    const written: string[] = [];
    let described = 0;
    const progress = progressLines(
      'export log (sandbox)',
      (chunk) => written.push(chunk),
      () => now,
      500,
    );
    const update = (text: string) =>
      progress.update(() => {
        described++;
        return text;
      });

    update('1000 events');
    now = 499;
    update('2000 events');
    now = 500;
    update('3000 events');
    now = 900;
    update('4000 events');
    now = 1000;
    update('5000 events');
    progress.done('5000 events exported');

    expect(written).toEqual([
      'export log (sandbox): 3000 events\n',
      'export log (sandbox): 5000 events\n',
      'export log (sandbox): 5000 events exported\n',
    ]);
    // Lines that are not printed are not built either.
    expect(described).toBe(2);
  });
});
