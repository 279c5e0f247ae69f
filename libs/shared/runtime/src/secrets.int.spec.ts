import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateSecret } from './secrets';

describe('loadOrCreateSecret', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'cip-secrets-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates a secret once and reads it back on every later start', () => {
    const first = loadOrCreateSecret({ dataDir, name: 'key', generate: () => 'generated-1' });
    const again = loadOrCreateSecret({ dataDir, name: 'key', generate: () => 'generated-2' });
    expect([first, again]).toEqual(['generated-1', 'generated-1']);
    expect(readdirSync(join(dataDir, 'secrets'))).toEqual(['key']);
  });

  it("takes the other process's secret when one created it first (processes starting on one DATA_DIR)", () => {
    const value = loadOrCreateSecret({
      dataDir,
      name: 'key',
      // Another process writes the secret while this one is generating its own.
      generate: () => {
        mkdirSync(join(dataDir, 'secrets'), { recursive: true });
        writeFileSync(join(dataDir, 'secrets', 'key'), 'the-other-process\n');
        return 'mine';
      },
    });
    expect(value).toBe('the-other-process');
    expect(readFileSync(join(dataDir, 'secrets', 'key'), 'utf8')).toBe('the-other-process\n');
    expect(readdirSync(join(dataDir, 'secrets'))).toEqual(['key']);
  });

  it('prefers the configured value and writes nothing', () => {
    expect(loadOrCreateSecret({ dataDir, name: 'key', fromEnv: ' set \n', generate: () => 'x' })).toBe('set');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
