import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The module boundaries of docs/ARCHITECTURE.md are enforced by lint; this proves the rule bites by planting
// imports in files of the tree (given to ESLint on stdin, never written) and reading what it reports.
const root = join(__dirname, '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

function lint(file: string, source: string): LintMessage[] {
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/eslint/bin/eslint.js'),
      '--stdin',
      '--stdin-filename',
      file,
      '--format',
      'json',
    ],
    {
      cwd: root,
      input: source,
      encoding: 'utf8',
      // A fresh project graph: a cached one may predate files moved since.
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_CACHE_PROJECT_GRAPH: 'false' },
    },
  );
  const [report] = JSON.parse(result.stdout) as { messages: LintMessage[] }[];
  return report.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries');
}

const planted = (imports: string) => `${imports}\nexport const planted = [x];\n`;

describe('module boundaries', () => {
  // The lint rule reads Nx's project graph; compute it afresh, as `npm run lint` does, so files moved since
  // the last computation are where they are now.
  beforeAll(() => {
    const refreshed = spawnSync(
      process.execPath,
      [join(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      },
    );
    expect(refreshed.status).toBe(0);
  });

  it("refuses a context importing another context's service, domain or read models", () => {
    for (const target of ['@cip/users/service', '@cip/users/domain', '@cip/users/read-models']) {
      const violations = lint('libs/kyc/service/src/planted.ts', planted(`import { x } from '${target}';`));
      expect(violations.map((v) => v.message).join('\n')).toMatch(/tagged with/i);
    }
  });

  it("refuses the webhooks dispatcher reading the events context's tables, and the gateway lib a context", () => {
    for (const [file, target] of [
      ['libs/webhooks/service/src/planted.ts', '@cip/events/read-models'],
      ['libs/gateway/http/src/planted.ts', '@cip/kyc/service'],
    ]) {
      expect(lint(file, planted(`import { x } from '${target}';`)).length).toBeGreaterThan(0);
    }
  });

  it("lets a context use another context's contract", () => {
    expect(
      lint('libs/kyc/service/src/planted.ts', planted("import { x } from '@cip/users/contract';")),
    ).toEqual([]);
  });

  it('confines the authorizations scope: the cards contract, never the cards domain', () => {
    const file = 'libs/authorizations/domain/src/planted.ts';
    expect(lint(file, planted("import { x } from '@cip/cards/domain';")).length).toBeGreaterThan(0);
    expect(lint(file, planted("import { x } from '@cip/cards/contract';"))).toEqual([]);
  });

  it('keeps contracts and domains free of services and infrastructure', () => {
    expect(
      lint('libs/users/contract/src/planted.ts', planted("import { x } from '@cip/users/domain';")),
    ).not.toEqual([]);
    expect(
      lint('libs/users/domain/src/planted.ts', planted("import { x } from '@cip/shared/infrastructure';")),
    ).not.toEqual([]);
  });
});
