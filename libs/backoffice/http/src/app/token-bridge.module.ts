import { DynamicModule, INestApplicationContext, Module, Provider, Type } from '@nestjs/common';

/** An injection token of another app's container: a contract token (`CARDS_API`), `CLOCK`, `METRICS`, ... */
export type BridgedToken = string | symbol | Type;

/**
 * The other contexts' contract tokens in the operator app, resolved from the app that hosts them (the
 * embedded platform's Nest container): one `useFactory` provider per token, global, so the operator API's
 * controllers `@Inject(CARDS_API)` as the /v1 controllers do. In the distributed runtime the operator app
 * gets transport clients under the same tokens instead (`ContextTransportModule.forClient`), and nothing
 * else changes.
 */
@Module({})
export class TokenBridgeModule {
  static from(source: INestApplicationContext, tokens: readonly BridgedToken[]): DynamicModule {
    const unique = [...new Set(tokens)];
    const providers: Provider[] = unique.map((token) => ({
      provide: token,
      useFactory: () => source.get(token, { strict: false }),
    }));
    return { module: TokenBridgeModule, global: true, providers, exports: unique };
  }
}
