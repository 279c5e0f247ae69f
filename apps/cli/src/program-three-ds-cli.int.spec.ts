import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

// A program's 3DS challenge deadline as the operator sets it (issue 13): 1 to 10 minutes, 5 by default.

describe('cli: program 3DS deadline', () => {
  let dataDir: string;
  let distributorId: string;
  const cli = (...argv: string[]) => runCliCaptured([...argv, '--data-dir', dataDir]);

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-3ds-'));
    const created = await cli('distributors', 'create', '--name', 'Acme', '--json');
    distributorId = JSON.parse(created.stdout).distributorId;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('sets the deadline in minutes or seconds, and shows it', async () => {
    const configured = await cli('distributors', 'configure', distributorId, '--three-ds-deadline', '3m');
    expect(configured).toMatchObject({ code: 0, stderr: '' });
    expect(configured.stdout).toContain('3DS deadline 180 s');
    await cli('distributors', 'configure', distributorId, '--three-ds-deadline', '90s');
    const shown = JSON.parse((await cli('distributors', 'show', distributorId, '--json')).stdout);
    expect(shown.program.threeDs).toEqual({ challengeDeadlineSeconds: 90 });
  });

  it.each(['30s', '11m', '0m', 'soon', '5'])('refuses %s and changes nothing', async (value) => {
    const refused = await cli('distributors', 'configure', distributorId, '--three-ds-deadline', value);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('1m to 10m');
    const shown = JSON.parse((await cli('distributors', 'show', distributorId, '--json')).stdout);
    expect(shown.program.threeDs).toBeUndefined();
  });
});
