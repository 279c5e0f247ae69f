import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, freePort, listening, spawnPlatform } from '@cip/platform/topologies';

describe('starting the platform as `npm start` runs it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-startup-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    ['LOG_LEVEL', 'verbose', 'must be one of fatal, error, warn, info, debug, trace, silent'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', '1', 'must be true or false'],
    ['PORT', 'http', 'must be a whole number from 0 to 65535'],
  ])('refuses %s=%s with a message naming the variable, and no stack trace', async (name, value, why) => {
    const platform = spawnPlatform({ DATA_DIR: dataDir, [name]: value });
    expect(await exited(platform.child)).toBe(1);
    expect(platform.stderr()).toContain(`${name}: ${why} (got "${value}")`);
    expect(platform.stderr()).not.toMatch(/\n\s+at /);
    expect(platform.stdout()).toBe('');
  });

  it('prints the banner to the terminal (stderr) and keeps stdout JSON log lines', async () => {
    const port = await freePort();
    const platform = spawnPlatform({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
    const child = await listening(platform);
    // Its API docs' "try it out" reaches this very process, not a default port.
    const document = (await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).json()) as {
      servers: { variables: { baseUrl: { default: string } } }[];
    };
    expect(document.servers[0].variables.baseUrl.default).toBe(`http://127.0.0.1:${port}`);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(platform.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(platform.stderr()).toMatch(/sandbox API key {2}sk_sandbox_\w+/);
    const lines = platform.stdout().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
