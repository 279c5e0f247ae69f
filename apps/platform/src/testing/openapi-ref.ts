type Json = Record<string, unknown>;

/**
 * The node a local `$ref` (`#/components/...`, JSON Pointer escapes `~1` and `~0`) points at in `document`,
 * following chained references (at most 20 hops, so a reference cycle ends); a node without `$ref` is
 * itself. A dangling reference resolves to `{}`: the callers then see a schema or header that says nothing.
 */
export function resolveRef(document: Json, node: unknown): Json {
  let current = (node ?? {}) as Json;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>(
      (at, key) => (at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')] ?? {}) as Json,
      document,
    );
  }
  return current;
}
