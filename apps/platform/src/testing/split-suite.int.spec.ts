import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

// The list of the e2e-split project stays whole: every e2e spec of the repository is either run on the
// split topology or named with why not, and nothing listed is gone.
// The CommonJS list jest.config.js reads.
const suite: {
  ported: string[];
  onPostgres: string[];
  notPorted: Record<string, string>;
} = require('./split-suite.js');

const root = join(__dirname, '..', '..', '..', '..');

function e2eSpecsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return e2eSpecsUnder(path);
    return entry.name.endsWith('.e2e.spec.ts') ? [relative(root, path)] : [];
  });
}

describe('the e2e-split list (apps/platform/src/testing/split-suite.js)', () => {
  const specs = [...e2eSpecsUnder(join(root, 'apps')), ...e2eSpecsUnder(join(root, 'libs'))].sort();

  it('names every e2e spec once: run on the split topology, or not with a reason', () => {
    const listed = [...suite.ported, ...Object.keys(suite.notPorted)].sort();
    expect(listed).toEqual(specs);
    expect(Object.values(suite.notPorted).filter((why) => why.trim() === '')).toEqual([]);
  });

  it('takes to PostgreSQL and Kafka only specs of the split run', () => {
    expect(suite.onPostgres.filter((spec) => !suite.ported.includes(spec))).toEqual([]);
  });
});
