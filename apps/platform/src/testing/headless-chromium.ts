import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (CI installs it: .ci/run). */
const CHROMIUM = '/usr/bin/chromium';

/**
 * `describe` when Chromium is installed, else `describe.skip` with the reason written to stderr: never a
 * silent pass. `what` names the test in that message.
 */
export function describeWithChromium(what: string): jest.Describe {
  if (existsSync(CHROMIUM)) return describe;
  process.stderr.write(`SKIPPED ${what}: ${CHROMIUM} is not installed (apt-get install chromium)\n`);
  return describe.skip;
}

/** Launches headless Chromium with no sandbox, GPU or background traffic (fit for a shared CI machine). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
