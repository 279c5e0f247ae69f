// Completes package-lock.json with the platform-specific optional packages (native binaries of @swc/core,
// the resolver of eslint's import plugin, ...) that the registry of this project's machines does not serve.
// npm records no lock entry for a package it cannot see, and `npm ci` then refuses the lock as out of sync.
// The entries written here name the version the parent pins and the os/cpu read from the package name, so npm
// skips them on other platforms and fetches them on theirs. Run after every `npm install` that changes the
// lock: `node tools/lockfile/complete-platform-packages.mjs`. (Hand-written: no npm option records packages
// the registry does not list.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix'];
const CPU = { x64: 'x64', arm64: 'arm64', arm: 'arm', ia32: 'ia32', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64' };

function platformOf(name) {
  const words = name.split('/').pop().split('-');
  const os = words.find((word) => OS.includes(word));
  const cpu = words.find((word) => word in CPU);
  const libc = words.some((word) => word.startsWith('musl')) ? 'musl' : words.some((word) => word.startsWith('gnu')) ? 'glibc' : undefined;
  return os && cpu ? { os, cpu: CPU[cpu], libc } : undefined;
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `${path ? `${path}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (lock.packages[at] || lock.packages[hoisted]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[hoisted] = {
      version,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
      ...(entry.dev ? { dev: true } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform package entries added\n`);
