import type { ClearingException } from '@cip/authorizations/domain';
import { ClearingExceptions } from '@cip/authorizations/service';
import { environmentStores, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

// `authorizations clearing-exceptions`: the clearing lines that could not apply, as recorded by the importer
// and projected (here by `projections rebuild`, as the platform's consumers do while it runs).

describe('cli: authorizations clearing-exceptions', () => {
  let dataDir: string;
  const cli = (...argv: string[]) => runCliCaptured([...argv, '--data-dir', dataDir]);
  const line = (fileId: string, sequence: number): ClearingException => ({
    fileId,
    sequence,
    kind: 'presentment',
    acquirerId: '400001',
    rrn: `33271000000${sequence}`,
    approvalCode: '123456',
    cardId: 'crd-1',
    amountMinor: 2101,
    currency: 'EUR',
    merchantName: 'Corner Cafe',
    presentedAt: '2026-11-23T09:00:00.000Z',
    code: 'validation_error',
    reason: `aut-${sequence} cannot clear 2101`,
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-clx-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('says there are none, then lists the recorded lines newest first, by file, once each', async () => {
    expect(await cli('authorizations', 'clearing-exceptions', '--env', 'sandbox')).toEqual({
      code: 0,
      stdout: 'No clearing exceptions in sandbox.\n',
      stderr: '',
    });

    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    const clock = new ManualClock('2026-11-23T10:00:00.000Z');
    const exceptions = new ClearingExceptions(environmentStores(infrastructure), clock);
    await exceptions.record('sandbox', line('CLR-sandbox-20261123-000001', 2));
    clock.advance(1000);
    await exceptions.record('sandbox', line('CLR-sandbox-20261123-000002', 1));
    await exceptions.record('sandbox', line('CLR-sandbox-20261123-000002', 1)); // the file imported again
    await infrastructure.close();
    expect(await cli('projections', 'rebuild', 'clearing_exceptions', '--env', 'sandbox')).toMatchObject({
      code: 0,
    });

    const all = await cli('authorizations', 'clearing-exceptions', '--env', 'sandbox', '--json');
    expect(all.code).toBe(0);
    const listed = JSON.parse(all.stdout);
    expect(listed.items.map((e: ClearingException) => [e.fileId, e.sequence])).toEqual([
      ['CLR-sandbox-20261123-000002', 1],
      ['CLR-sandbox-20261123-000001', 2],
    ]);
    expect(listed.items[1]).toMatchObject({
      ...line('CLR-sandbox-20261123-000001', 2),
      createdAt: '2026-11-23T10:00:00.000Z',
    });

    const text = await cli(
      'authorizations',
      'clearing-exceptions',
      '--env',
      'sandbox',
      '--file',
      'CLR-sandbox-20261123-000001',
    );
    expect(text.stdout).toContain('21.01 EUR');
    expect(text.stdout).toContain('aut-2 cannot clear 2101');
    expect(text.stdout).not.toContain('CLR-sandbox-20261123-000002');
    expect((await cli('authorizations', 'clearing-exceptions', '--env', 'production')).stdout).toBe(
      'No clearing exceptions in production.\n',
    );
  });

  it('refuses a page size outside 1..100 and a missing environment', async () => {
    const tooMany = await cli('authorizations', 'clearing-exceptions', '--env', 'sandbox', '--limit', '101');
    expect(tooMany).toMatchObject({ code: 2, stdout: '' });
    expect(tooMany.stderr).toContain('Takes a whole number from 1 to 100.');
    const noEnv = await cli('authorizations', 'clearing-exceptions');
    expect(noEnv).toMatchObject({ code: 2 });
    expect(noEnv.stderr).toContain("required option '--env <environment>' not specified");
  });
});
