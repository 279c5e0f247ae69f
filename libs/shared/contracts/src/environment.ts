/** The two fully isolated environments (spec part 1, fact 1). */
export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The caller of a /v1 request, resolved from its API key. Every command and query is scoped by it. */
export interface Tenant {
  distributorId: string;
  environment: Environment;
}
