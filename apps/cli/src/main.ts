import { runCli } from './cli';
import type { CliIo } from './command';

const io: CliIo = {
  out: (chunk) =>
    new Promise((resolve, reject) =>
      process.stdout.write(chunk, (error) => {
        if (!error) resolve();
        // The reader stopped early (`export log | head`): the export is over, not failed.
        else if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
        else reject(error);
      }),
    ),
  err: (chunk) => void process.stderr.write(chunk),
  env: process.env,
  errIsTerminal: process.stderr.isTTY,
};
// Write errors reach the callback above; without a listener the same error would also crash the process.
process.stdout.on('error', () => undefined);

runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
