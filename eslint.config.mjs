import nx from '@nx/eslint-plugin';

// Module boundaries (docs/ARCHITECTURE.md): a context's contract (type:contract) is its published language
// and depends on nothing but the shared contracts; domain depends on contracts; read models on their domain;
// services on their domain, read models, HTTP surface and the ports; the gateway lib on contracts and the
// control plane; only apps and the registry assemble contexts, and apps never import apps.
// Across contexts, only contracts: a lib of scope X may import scope X, shared libs, and any context's
// contract, never another context's service, domain, read models or HTTP surface.
// Test helpers (type:testing) may be used by tests, contract suites and test harnesses only.
const CONTEXT_SCOPES = [
  'users',
  'kyc',
  'wallets',
  'webhooks',
  'events',
  'distributors',
  'cards',
  'tokenization',
  'three-ds',
  'authorizations',
  'simulator',
  'backoffice',
];
// What a context's service and HTTP surface build on (within their own scope, see below).
const CONTEXT_LAYERS = [
  'type:contracts',
  'type:contract',
  'type:shared',
  'type:domain',
  'type:read-models',
  'type:service',
  'type:http',
];
const layers = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:contracts', 'type:contract'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:contract', 'type:domain'] },
  { sourceTag: 'type:shared', onlyDependOnLibsWithTags: ['type:contracts', 'type:shared'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:shared', 'type:testing'] },
  {
    sourceTag: 'type:read-models',
    onlyDependOnLibsWithTags: [
      'type:contracts',
      'type:contract',
      'type:shared',
      'type:domain',
      'type:read-models',
    ],
  },
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: CONTEXT_LAYERS },
  { sourceTag: 'type:http', onlyDependOnLibsWithTags: CONTEXT_LAYERS },
  { sourceTag: 'type:registry', notDependOnLibsWithTags: ['type:app'] },
  { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:app'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  ...CONTEXT_SCOPES.map((scope) => ({
    sourceTag: `scope:${scope}`,
    onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared', 'type:contract', 'scope:gateway'],
  })),
  // The gateway lib (pipeline, common decorators) knows the control plane and the contracts, no context.
  {
    sourceTag: 'scope:gateway',
    onlyDependOnLibsWithTags: ['scope:gateway', 'scope:distributors', 'scope:shared', 'type:contract'],
  },
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
      // SQLite prepares a statement again on every run when its LIMIT or OFFSET is a bare bound parameter
      // (docs/STACK-NOTES.md, "A bare bound LIMIT prepares the statement again"): write CAST(? AS INTEGER).
      'no-restricted-syntax': [
        'error',
        ...['Literal[value', 'TemplateElement[value.raw'].map((node) => ({
          selector: `${node}=/\\b(LIMIT|OFFSET)\\s+[?@:$]/i]`,
          message:
            'A bare bound LIMIT/OFFSET makes SQLite prepare the statement on every run: CAST(? AS INTEGER).',
        })),
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/testing/**/*.ts', 'libs/shared/*/src/contract/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(forTests),
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
];
