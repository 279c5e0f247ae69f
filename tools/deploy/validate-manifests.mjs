// Validates Kubernetes manifests against the Kubernetes OpenAPI schemas of the kubernetes-models package.
// Reads a JSON array of manifests on stdin, writes a JSON array of problems on stdout (empty: all valid).
//
// A separate ES module because kubernetes-models ships only ES modules, which Jest's CommonJS runtime cannot
// import; tools/deploy/helm-chart.int.spec.ts runs it with Node. The schemas check types, required fields and
// formats; like Kubernetes' own OpenAPI documents they do not reject unknown fields.

/** `apps/v1` -> the package's `apps/v1` module; `v1` -> its core `v1` module. */
const modulePath = (apiVersion) => `kubernetes-models/${apiVersion}`;

async function modelOf(apiVersion, kind) {
  try {
    const models = await import(modulePath(apiVersion));
    return models[kind];
  } catch {
    return undefined;
  }
}

async function problemsOf(manifest) {
  const where = `${manifest?.kind ?? '?'} ${manifest?.metadata?.name ?? '?'}`;
  const Model = await modelOf(manifest?.apiVersion, manifest?.kind);
  if (!Model) return [`${where}: no Kubernetes schema for ${manifest?.apiVersion} ${manifest?.kind}`];
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    return [`${where}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const problems = [];
for (const manifest of JSON.parse(input)) problems.push(...(await problemsOf(manifest)));
process.stdout.write(JSON.stringify(problems));
