import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('commits what was submitted in one turn of the event loop together, each with its own outcome', async () => {
    const commits: number[][] = [];
    const committed: number[] = [];
    const group = new GroupCommit<number, string>(
      (items) => {
        commits.push(items);
        return items.map((n) => (n < 0 ? new Error(`refused ${n}`) : `stored ${n}`));
      },
      (items) => committed.push(items.length),
    );
    const results = await Promise.allSettled([group.submit(1), group.submit(-2), group.submit(3)]);
    expect(commits).toEqual([[1, -2, 3]]);
    expect(committed).toEqual([3]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'stored 1' },
      { status: 'rejected', reason: new Error('refused -2') },
      { status: 'fulfilled', value: 'stored 3' },
    ]);
    expect(await group.submit(4)).toBe('stored 4');
    expect(commits).toEqual([[1, -2, 3], [4]]);
  });

  it('rejects every submission of a commit that throws, and tells nobody it committed', async () => {
    const committed = jest.fn();
    const group = new GroupCommit<number, string>(() => {
      throw new Error('disk full');
    }, committed);
    const results = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(committed).not.toHaveBeenCalled();
  });

  it('commits what is queued at once on flush (a store closing), and the scheduled turn finds nothing', async () => {
    const commits: number[][] = [];
    const group = new GroupCommit<number, number>((items) => (commits.push(items), items));
    const pending = group.submit(7);
    expect(group.pending).toBe(1);
    group.flush();
    expect(commits).toEqual([[7]]);
    expect(group.pending).toBe(0);
    expect(await pending).toBe(7);
    await new Promise((resolve) => setImmediate(resolve));
    expect(commits).toEqual([[7]]);
  });
});
