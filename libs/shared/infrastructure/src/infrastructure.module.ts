import {
  DynamicModule,
  Global,
  Inject,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import {
  CLOCK,
  Clock,
  createLogger,
  Logger,
  METRICS,
  PlatformMetrics,
  clockFromEnvironment,
  FileClock,
} from '@cip/shared/runtime';
import { ConsumerHost } from './consumers';
import { Infrastructure, INFRASTRUCTURE } from './infrastructure';
import { Readiness, registerConsumerChecks, registerStoreChecks } from './health/readiness';
import { ProcessHealthReporter } from './health/process-health';

export const LOGGER = Symbol('LOGGER');

export interface InfrastructureModuleOptions {
  /** Opens the ports; only apps choose the driver (embedded SQLite or distributed servers). */
  open(deps: { metrics: PlatformMetrics; logger: Logger }): Infrastructure | Promise<Infrastructure>;
  /** Whether this process runs the log consumers (projections, recorders, sagas). */
  runConsumers: boolean;
  /**
   * The app this process runs (`platform`, a service's name, `gateway`, ...): when given, the process writes its
   * health report to the control scope every few seconds (ProcessHealthReporter, the dashboard's health page).
   */
  process?: string;
  clock?: Clock;
  metrics?: PlatformMetrics;
  logger?: Logger;
}

class ConsumerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ConsumerHost) private readonly host: ConsumerHost,
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    private readonly runConsumers: boolean,
    private readonly health: ProcessHealthReporter | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.runConsumers) await this.host.start(this.infrastructure);
    this.health?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.health?.stop();
    await this.host.stop();
    await this.infrastructure.close();
  }
}

/** This process's ProcessHealthReporter, or null when InfrastructureModule was given no `process`. */
export const PROCESS_HEALTH = Symbol('PROCESS_HEALTH');

/**
 * Provides the ports (INFRASTRUCTURE), the clock, metrics, logger, the consumer host and the process's
 * Readiness (its stores and consumer groups checked on /health) to every context module. Consumers start after every module has registered its own, and stop before the
 * stores close.
 */
/** The system clock, or the e2e suite's shared test clock when TEST_CLOCK_FILE names one (said loudly). */
function processClock(logger: Logger): Clock {
  const clock = clockFromEnvironment();
  if (clock instanceof FileClock) {
    logger.warn(
      { file: process.env.TEST_CLOCK_FILE },
      'TEST_CLOCK_FILE is set: this process runs on a test clock',
    );
  }
  return clock;
}

@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(options: InfrastructureModuleOptions): DynamicModule {
    const metrics = options.metrics ?? new PlatformMetrics();
    const logger = options.logger ?? createLogger();
    return {
      module: InfrastructureModule,
      providers: [
        { provide: METRICS, useValue: metrics },
        { provide: LOGGER, useValue: logger },
        { provide: CLOCK, useValue: options.clock ?? processClock(logger) },
        { provide: INFRASTRUCTURE, useFactory: () => options.open({ metrics, logger }) },
        { provide: ConsumerHost, useValue: new ConsumerHost() },
        {
          // Modules add their own checks (a client's breaker, the relay loops) to the same registry.
          provide: Readiness,
          inject: [ConsumerHost, INFRASTRUCTURE],
          useFactory: (host: ConsumerHost, infrastructure: Infrastructure) => {
            const readiness = new Readiness();
            registerStoreChecks(readiness, infrastructure);
            registerConsumerChecks(readiness, host);
            return readiness;
          },
        },
        {
          provide: PROCESS_HEALTH,
          inject: [INFRASTRUCTURE],
          useFactory: (infrastructure: Infrastructure) =>
            options.process
              ? new ProcessHealthReporter(
                  options.process,
                  metrics,
                  () => infrastructure.scope('control').readStore,
                  logger,
                )
              : null,
        },
        {
          provide: ConsumerLifecycle,
          inject: [ConsumerHost, INFRASTRUCTURE, PROCESS_HEALTH],
          useFactory: (
            host: ConsumerHost,
            infrastructure: Infrastructure,
            health: ProcessHealthReporter | null,
          ) => new ConsumerLifecycle(host, infrastructure, options.runConsumers, health),
        },
      ],
      exports: [METRICS, LOGGER, CLOCK, INFRASTRUCTURE, ConsumerHost, Readiness, PROCESS_HEALTH],
    };
  }
}
