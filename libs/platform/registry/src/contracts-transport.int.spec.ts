import { DynamicModule, Global, INestApplicationContext, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { Caller, ContextContract, contractMethods, DomainError } from '@cip/shared/contracts';
import { INFRASTRUCTURE, LOGGER } from '@cip/shared/infrastructure';
import { createLogger } from '@cip/shared/runtime';
import { ContextTransportModule } from '@cip/shared/transport';
import type { AddressInfo, Server } from 'node:net';
import { PLATFORM_CONTEXTS } from './index';

// Every contract of every context of the registry goes through the one generic transport: each method
// arrives with its arguments (an optional one left out stays undefined, the caller loses its key id), its
// answer comes back, and a domain error keeps its code, message and details. A context added to the
// registry is covered without editing this test.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- contracts of different APIs
type AnyContract = ContextContract<any>;
const CONTRACTS: AnyContract[] = PLATFORM_CONTEXTS.flatMap((context) => context.contracts);

const caller: Caller & { keyId: string } = {
  distributorId: 'dst-1',
  environment: 'sandbox',
  requestId: 'req-1',
  program: { allowedCountries: ['FR'], b2b: true, prepaid: false, kycImportEnabled: false },
  keyId: 'key-never-crosses-the-wire',
};

interface Received {
  method: string;
  args: unknown[];
}

/** An API that records what it receives, answers with it, and raises a domain error on demand. */
function recordingApi(contract: AnyContract): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const api: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of contractMethods(contract)) {
    api[method] = async (...args: unknown[]) => {
      const sent = JSON.stringify(args);
      if (sent.includes('raise-domain-error'))
        throw new DomainError('invalid_state_transition', `${method} refused`, [
          { field: 'f', message: 'm' },
        ]);
      if (sent.includes('raise-fault')) throw new Error('a bug in the service');
      if (sent.includes('answer-nothing')) return undefined;
      return {
        method,
        args: args.map((arg) => (arg === undefined ? '<undefined>' : arg)),
      } satisfies Received;
    };
  }
  return api;
}

@Global()
@Module({})
class Silent {
  static module(): DynamicModule {
    return {
      module: Silent,
      providers: [
        { provide: LOGGER, useValue: createLogger('silent') },
        // The message handlers record keyed requests' runs in the stores; no call of this spec carries one.
        {
          provide: INFRASTRUCTURE,
          useValue: {
            scope: () => {
              throw new Error('no keyed request in this spec: the stores are not used');
            },
          },
        },
      ],
      exports: [LOGGER, INFRASTRUCTURE],
    };
  }
}

@Module({})
class Fakes {
  static module(): DynamicModule {
    const providers = CONTRACTS.map((contract) => ({
      provide: contract.token,
      useValue: recordingApi(contract),
    }));
    return { module: Fakes, global: true, providers, exports: providers.map((p) => p.provide) };
  }
}

/** Sample arguments by parameter name; the last one left out when `omitLast`. */
function argumentsOf(contract: AnyContract, method: string, omitLast: boolean): unknown[] {
  const names = contract.methods[method] as readonly string[];
  const args: unknown[] = names.map((name) => (name === 'caller' ? caller : { [name]: `${method}:${name}` }));
  if (omitLast && args.length > 1) args[args.length - 1] = undefined;
  return args;
}

const expectedOnServer = (args: unknown[]) =>
  args.map((arg) => {
    if (arg === caller) {
      const { keyId: _keyId, ...wire } = caller;
      return wire;
    }
    return arg === undefined ? '<undefined>' : arg;
  });

describe('context contracts over the generic transport', () => {
  let server: INestMicroservice;
  let client: INestApplicationContext;

  beforeAll(async () => {
    server = await NestFactory.createMicroservice<MicroserviceOptions>(
      {
        module: class ServerUnderTest {},
        imports: [
          Silent.module(),
          Fakes.module(),
          ContextTransportModule.forServer({ imports: [], contracts: CONTRACTS }),
        ],
      },
      { transport: Transport.TCP, options: { host: '127.0.0.1', port: 0 }, logger: false },
    );
    await server.listen();
    const port = (server.unwrap<Server>().address() as AddressInfo).port;
    client = await NestFactory.createApplicationContext(
      {
        module: class ClientUnderTest {},
        imports: [
          Silent.module(),
          ContextTransportModule.forClient({
            service: 'under-test',
            host: '127.0.0.1',
            port,
            contracts: CONTRACTS,
          }),
        ],
      },
      { logger: false },
    );
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('covers every context of the registry that has a contract', () => {
    expect(CONTRACTS.length).toBeGreaterThan(0);
    const names = CONTRACTS.map((contract) => contract.name);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const contract of CONTRACTS) {
    describe(contract.name, () => {
      const api = () => client.get<Record<string, (...args: unknown[]) => Promise<unknown>>>(contract.token);

      for (const method of contractMethods(contract)) {
        it(`${method}: arguments arrive by name and the answer comes back`, async () => {
          for (const omitLast of [false, true]) {
            const args = argumentsOf(contract, method, omitLast);
            const answer = (await api()[method](...args)) as Received;
            expect(answer.method).toBe(method);
            expect(answer.args).toEqual(expectedOnServer(args));
          }
        });

        it(`${method}: an answer of nothing (Promise<void>) resolves, as in process`, async () => {
          const args = argumentsOf(contract, method, false);
          args[args.length - 1] =
            args.length > 1 ? 'answer-nothing' : { ...caller, requestId: 'answer-nothing' };
          await expect(api()[method](...args)).resolves.toBeNull();
        });

        it(`${method}: a domain error keeps its code, message and details; a fault is an internal error`, async () => {
          // The marker travels in the last argument (inside the caller when it is the only one).
          const args = argumentsOf(contract, method, false);
          const mark = (marker: string) => (args.length > 1 ? marker : { ...caller, requestId: marker });
          args[args.length - 1] = mark('raise-domain-error');
          const refused = await api()
            [method](...args)
            .catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(DomainError);
          expect(refused).toMatchObject({
            code: 'invalid_state_transition',
            message: `${method} refused`,
            details: [{ field: 'f', message: 'm' }],
          });

          args[args.length - 1] = mark('raise-fault');
          const fault = await api()
            [method](...args)
            .catch((error: unknown) => error);
          expect(fault).toBeInstanceOf(DomainError);
          expect((fault as DomainError).code).toBe('internal_error');
        });
      }
    });
  }
});
