import { runCli } from '../cli';
import type { CliIo } from '../command';

/** What one in-process CLI run printed, and its exit code. */
export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line in process (no --data-dir added), capturing stdout and stderr; `io` overrides the rest. */
export async function runCliCaptured(
  argv: string[],
  io: Partial<Omit<CliIo, 'out' | 'err'>> = {},
): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    out: async (chunk) => {
      stdout += chunk;
    },
    err: (chunk) => {
      stderr += chunk;
    },
    env: {},
    ...io,
  });
  return { code, stdout, stderr };
}
