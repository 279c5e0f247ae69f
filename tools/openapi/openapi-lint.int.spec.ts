import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Harness, startHarness } from '../../apps/platform/src/testing/platform-harness';

// The served OpenAPI document passes both well-known linters with no error and no warning (redocly.yaml and
// .spectral.yaml at the root say which rules), so generators and readers of it meet no surprise.
const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const LINT_TIMEOUT_MS = 60_000;

/** Runs a linter and returns its JSON report (stdout), whatever its exit code says. */
async function lint(command: string, args: string[]): Promise<unknown> {
  try {
    const { stdout, stderr } = await run(join(root, 'node_modules/.bin', command), args, {
      cwd: root,
      timeout: LINT_TIMEOUT_MS,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    return parse(command, stdout, stderr);
  } catch (error) {
    const failed = error as { code?: number; killed?: boolean; stdout?: string; stderr?: string };
    if (failed.killed) throw new Error(`${command} did not finish within ${LINT_TIMEOUT_MS} ms`);
    return parse(command, failed.stdout ?? '', failed.stderr ?? '');
  }
}

function parse(command: string, stdout: string, stderr: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`${command} did not report in JSON:\n${stdout}\n${stderr}`);
  }
}

// Both served documents: the distributors' API (/v1) and the backoffice's operator API (/operator/v1).
describe.each([
  ['/v1/', (h: Harness) => h.http],
  ['/operator/v1/', (h: Harness) => h.operatorHttp],
])('the served OpenAPI document of %s', (prefix, agent) => {
  let h: Harness;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'cip-openapi-'));
    file = join(dir, 'openapi.json');
    const served = await agent(h).get(`${prefix}openapi.json`);
    expect(served.status).toBe(200);
    writeFileSync(file, JSON.stringify(served.body, null, 2));
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is OpenAPI 3.1', async () => {
    const served = await agent(h).get(`${prefix}openapi.json`);
    expect(served.body.openapi).toBe('3.1.0');
  });

  it(
    'passes redocly lint (recommended) with no error and no warning',
    async () => {
      const result = await lint('redocly', [
        'lint',
        '--config',
        join(root, 'redocly.yaml'),
        '--format',
        'json',
        file,
      ]);
      const report = result as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'passes spectral lint (spectral:oas and the rules of .spectral.yaml) with no error and no warning',
    async () => {
      const result = await lint('spectral', [
        'lint',
        '--ruleset',
        join(root, '.spectral.yaml'),
        '--fail-severity',
        'hint',
        '--format',
        'json',
        '--quiet',
        file,
      ]);
      const problems = (result as { code: string; path: string[]; message: string }[]).map(
        (p) => `${p.code} at ${p.path.join('.')}: ${p.message}`,
      );
      expect(problems).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );
});
