import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { within, type WaitBound } from './wait-for';

/**
 * A crash test's child process, killed with SIGKILL in the middle of its run: each line it prints on stdout
 * goes to `onLine`, which returns true once enough has been acknowledged; the child is then killed, and this
 * resolves once it has exited, with what it printed on stderr. Lines it printed before the kill keep coming
 * to `onLine` until its stdout ends (they were acknowledged). Rejects, with that stderr, if the child exits
 * on its own first, or once the bound has passed.
 */
export async function killMidRun(
  child: ChildProcess,
  onLine: (line: string) => boolean,
  bound: WaitBound,
): Promise<{ stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ended = new Promise<void>((resolve) => lines.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killed = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (onLine(line) && child.signalCode === null && child.exitCode === null) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`the child exited with ${code} before the kill:\n${stderr}`));
    });
  });
  await within(killed, bound);
  await Promise.all([exited, ended]);
  return { stderr };
}
