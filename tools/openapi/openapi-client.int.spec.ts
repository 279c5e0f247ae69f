import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  Harness,
  newUserBody,
  SANDBOX_KEY,
  startHarness,
} from '../../apps/platform/src/testing/platform-harness';

// A typed client generated from the served document with openapi-typescript and used through openapi-fetch
// type-checks under --strict and works against the platform: what an integrator does on day one.
const root = join(__dirname, '..', '..');
const FLOW = join(__dirname, 'client-flow.ts');
const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 60_000;

type Document = { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };

/** Generates `api.d.ts` from `document` beside a copy of the flow and type-checks both; returns tsc's report. */
async function typeCheckFlow(dir: string, document: Document): Promise<string> {
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
  await run(join(root, 'node_modules/.bin/openapi-typescript'), ['openapi.json', '-o', 'api.d.ts'], {
    cwd: dir,
    timeout: TOOL_TIMEOUT_MS,
  });
  try {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      cwd: dir,
      timeout: TOOL_TIMEOUT_MS,
    });
    return '';
  } catch (error) {
    const failed = error as { killed?: boolean; stdout?: string; stderr?: string };
    if (failed.killed) throw new Error(`tsc did not finish within ${TOOL_TIMEOUT_MS} ms`);
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}` || String(error);
  }
}

describe('a client generated from the served OpenAPI document', () => {
  let h: Harness;
  let dir: string;
  let document: Document;

  beforeAll(async () => {
    h = await startHarness();
    document = (await h.http.get('/v1/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'cip-client-'));
    copyFileSync(FLOW, join(dir, 'client-flow.ts'));
    // openapi-fetch's types are found as an integrator's project finds them: in its node_modules.
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'preserve',
          moduleResolution: 'bundler',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['client-flow.ts'],
      }),
    );
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'type-checks a real flow under tsc --strict',
    async () => {
      expect(await typeCheckFlow(dir, document)).toBe('');
    },
    2 * TOOL_TIMEOUT_MS,
  );

  it(
    'stops type-checking when a schema is wrong (a nullable address documented as a bare object)',
    async () => {
      const broken = structuredClone(document);
      broken.components.schemas.User.properties.shippingAddress = { type: ['object', 'null'] };
      expect(await typeCheckFlow(dir, broken)).toMatch(/client-flow\.ts.*error TS/);
    },
    2 * TOOL_TIMEOUT_MS,
  );

  it('runs the flow against the platform', async () => {
    const { email } = newUserBody();
    const { runClientFlow } = jest.requireActual<{
      runClientFlow(baseUrl: string, apiKey: string, email: string): Promise<Record<string, unknown>>;
    }>(FLOW);
    const outcome = await runClientFlow(h.platform.url, SANDBOX_KEY, email);
    expect(outcome).toEqual({
      userId: expect.stringMatching(/^usr-/),
      readEmail: email,
      listed: { count: 1, hasMore: false, ids: [outcome.userId] },
      noAddressYet: true,
      invalidField: 'email',
      notFoundCode: 'not_found',
      walletsOfUser: 0,
      signingAlgorithm: 'ed25519',
    });
  }, 60_000);
});
