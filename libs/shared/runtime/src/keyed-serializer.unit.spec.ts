import { KeyedSerializer } from './keyed-serializer';

/** A task that runs until the test releases it, recording when it starts and ends. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async () => {
    log.push(`${name} start`);
    await gate;
    log.push(`${name} end`);
    return name;
  };
  return { task, release };
}

describe('KeyedSerializer', () => {
  it('runs the tasks of one key one after another in call order, other keys meanwhile', async () => {
    const serializer = new KeyedSerializer();
    const log: string[] = [];
    const a1 = gated(log, 'a1');
    const a2 = gated(log, 'a2');
    const b1 = gated(log, 'b1');
    const first = serializer.run('a', a1.task);
    const second = serializer.run('a', a2.task);
    const other = serializer.run('b', b1.task);
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a1 start', 'b1 start']);
    b1.release();
    expect(await other).toBe('b1');
    a1.release();
    expect(await first).toBe('a1');
    a2.release();
    expect(await second).toBe('a2');
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
  });

  it('goes on with the next task of a key after one fails, and forgets idle keys', async () => {
    const serializer = new KeyedSerializer();
    const failed = serializer.run('a', async () => {
      throw new Error('boom');
    });
    const next = serializer.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
    await new Promise((resolve) => setImmediate(resolve));
    expect(serializer.busyKeys).toBe(0);
  });
});
