/**
 * The description of a context API that the generic transport needs: a name (the prefix of its message
 * patterns), the injection token the API is provided under, and for each method the names of its
 * parameters, in order. Commands travel as named payloads rather than argument lists: JSON turns an
 * `undefined` argument into `null`, and names let either side add an optional parameter without breaking
 * the other during a rollout.
 *
 * The types make the description complete: every method of the API, every parameter of each method.
 */

/** An API the transport can carry: every method is asynchronous (a call may cross a process boundary). */
export type ContextApi<Api> = { [K in keyof Api]: (...args: never[]) => Promise<unknown> };

/** One name per parameter of a method, optional parameters included. */
export type ParameterNames<Method> = Method extends (...args: infer Args) => unknown
  ? { readonly [I in keyof Args]-?: string }
  : never;

export type ContractMethods<Api> = { readonly [K in keyof Api & string]-?: ParameterNames<Api[K]> };

export interface ContextContract<Api extends ContextApi<Api> = ContextApi<object>> {
  /** Prefix of the message patterns (`users` gives `users.createUser`). */
  readonly name: string;
  /** Where the API is provided: the service itself in its process, a transport client elsewhere. */
  readonly token: symbol;
  readonly methods: ContractMethods<Api>;
}

/** Declares a context API for the transport (see {@link ContextContract}). */
export function defineContext<Api extends ContextApi<Api>>(contract: {
  name: string;
  token: symbol;
  methods: ContractMethods<Api>;
}): ContextContract<Api> {
  return contract;
}

/** The message pattern of one method. */
export const messagePattern = (contract: { name: string }, method: string): { cmd: string } => ({
  cmd: `${contract.name}.${method}`,
});

/** The method names of a contract. */
export const contractMethods = <Api extends ContextApi<Api>>(
  contract: ContextContract<Api>,
): (keyof Api & string)[] => Object.keys(contract.methods) as (keyof Api & string)[];
