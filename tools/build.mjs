// Compiles apps/, libs/ and tools/ TypeScript to dist/ with SWC (type-checking is `npm run typecheck`).
// Path aliases from tsconfig.base.json are rewritten to relative imports, so dist runs on plain Node.
// Incremental: a file is recompiled only when its source is newer than its output.
import { transformFile } from '@swc/core';
import { readFileSync, readdirSync, statSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8'));
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
const options = {
  ...swcrc,
  swcrc: false,
  jsc: { ...swcrc.jsc, baseUrl: root, paths: compilerOptions.paths },
};

// The dashboard's web app is a browser bundle, built by Vite below, not compiled file by file for Node.
const webApp = join(root, 'apps', 'dashboard-web');

function* sources(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && path !== webApp) yield* sources(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
      yield path;
    }
  }
}

const started = Date.now();
let compiled = 0;
const jobs = [];
for (const top of ['apps', 'libs', 'tools']) {
  for (const file of sources(join(root, top))) {
    const out = join(root, 'dist', relative(root, file)).replace(/\.ts$/, '.js');
    if (existsSync(out) && statSync(out).mtimeMs >= statSync(file).mtimeMs) continue;
    jobs.push(
      transformFile(file, { ...options, filename: file, sourceFileName: relative(dirname(out), file) }).then((r) => {
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, r.code + `\n//# sourceMappingURL=${out.split('/').pop()}.map`);
        if (r.map) writeFileSync(out + '.map', r.map);
        compiled++;
      }),
    );
  }
}
await Promise.all(jobs);
// Static assets that ship beside the code (HTML pages, SQL, contract fixtures).
for (const top of ['apps', 'libs']) {
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== webApp) walk(path);
      } else if (/\.(html|css|svg)$/.test(entry.name)) {
        const out = join(root, 'dist', relative(root, path));
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, readFileSync(path));
      }
    }
  };
  walk(join(root, top));
}
if (!quiet) console.error(`build: ${compiled} file(s) compiled in ${Date.now() - started} ms`);
await buildDashboard();

// The backoffice dashboard (apps/dashboard-web, react-admin on Vite) into dist/apps/dashboard-web/, served
// by the operator app. Bundled offline (no CDN, system fonts). Skipped when no input changed since the last
// build: its sources, the backoffice contract it imports, and the installed packages.
async function buildDashboard() {
  const outDir = join(root, 'dist', 'apps', 'dashboard-web');
  const stampFile = join(root, 'dist', 'apps', 'dashboard-web.stamp');
  const inputs = [webApp, ...['backoffice', 'kyc'].map((c) => join(root, `libs/${c}/contract/src`))];
  let newest = statSync(join(root, 'package-lock.json')).mtimeMs;
  const scan = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) scan(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  inputs.forEach(scan);
  const stamp = String(newest);
  if (
    existsSync(join(outDir, 'index.html')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === stamp
  )
    return;
  const webStarted = Date.now();
  const { build } = await import('vite');
  const { default: react } = await import('@vitejs/plugin-react');
  const alias = (name) => join(root, compilerOptions.paths[name][0]);
  await build({
    root: webApp,
    base: '/',
    configFile: false,
    envDir: false,
    logLevel: quiet ? 'error' : 'warn',
    plugins: [react()],
    resolve: {
      alias: {
        '@cip/backoffice/contract': alias('@cip/backoffice/contract'),
        // Only the vocabulary the pages need (declined codes): the contract's index also exports server-side
        // helpers. The app's tsconfig checks the import against the whole contract.
        '@cip/kyc/contract': join(root, 'libs/kyc/contract/src/kyc.types.ts'),
      },
    },
    build: {
      outDir,
      emptyOutDir: true,
      sourcemap: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 4096,
    },
  });
  writeFileSync(stampFile, stamp);
  if (!quiet) console.error(`build: dashboard web app bundled in ${Date.now() - webStarted} ms`);
}
