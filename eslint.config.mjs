import nx from '@nx/eslint-plugin';

// Module boundaries (ARCHITECTURE.md): domain depends on nothing but shared contracts; read models on
// their domain; services on domain, read models and ports; the HTTP lib on services; only apps choose
// adapters, and apps never import apps. Contexts reach each other only through apps (composition roots).
// Test helpers (type:testing) may be used by tests, contract suites and test harnesses only.
const layers = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain'] },
  { sourceTag: 'type:shared', onlyDependOnLibsWithTags: ['type:contracts', 'type:shared'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:testing'] },
  {
    sourceTag: 'type:read-models',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:domain', 'type:read-models'],
  },
  {
    sourceTag: 'type:service',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:domain', 'type:read-models', 'type:service'],
  },
  {
    sourceTag: 'type:http',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:domain', 'type:read-models', 'type:service'],
  },
  {
    sourceTag: 'type:catalogue',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:domain', 'type:read-models', 'type:service'],
  },
  { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:app'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:users', onlyDependOnLibsWithTags: ['scope:users', 'scope:shared'] },
  { sourceTag: 'scope:events', onlyDependOnLibsWithTags: ['scope:events', 'scope:shared'] },
  { sourceTag: 'scope:distributors', onlyDependOnLibsWithTags: ['scope:distributors', 'scope:shared'] },
  { sourceTag: 'scope:kyc', onlyDependOnLibsWithTags: ['scope:kyc', 'scope:shared'] },
  { sourceTag: 'scope:wallets', onlyDependOnLibsWithTags: ['scope:wallets', 'scope:shared'] },
  { sourceTag: 'scope:webhooks', onlyDependOnLibsWithTags: ['scope:webhooks', 'scope:events', 'scope:shared'] },
];

const boundaries = (depConstraints) => [
  'error',
  { enforceBuildableLibDependency: false, allow: [], depConstraints },
];

const forTests = layers.map((c) =>
  c.onlyDependOnLibsWithTags
    ? { ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'type:testing'] }
    : c,
);

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/data', '**/*.js', '**/*.mjs', 'helm/**', 'deploy/**'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(layers),
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.spec.ts', '**/testing/**/*.ts', '**/contract/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(forTests),
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
];
