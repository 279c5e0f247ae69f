// Global setup of the e2e project: the built platform (dist/) is what the process-level tests spawn, as
// `npm start` runs it. Built once here, before any test file, so two files never build into dist/ at once.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async function buildPlatform() {
  const root = join(__dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'tools/build.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
};
