import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { BackofficeModule, type BackofficeOptions } from '@cip/backoffice/service';
import { OperatorGuard } from '../access/operator.guard';
import { DistributorsController } from '../control-plane/distributors.controller';
import { HealthController } from '../health/health.controller';
import { ENVIRONMENT_CONTROLLERS } from '../environment';
import { AuditController, StaffController } from '../staff/staff.controller';
import { InvitationsController, SessionController } from '../staff/session.controller';

/** The operator API's own controllers (the environment pages' are ENVIRONMENT_CONTROLLERS). */
export const OPERATOR_CONTROLLERS: Type[] = [
  SessionController,
  InvitationsController,
  StaffController,
  AuditController,
  DistributorsController,
  HealthController,
];

/**
 * The operator app: the backoffice's services and controllers behind one global guard. `platform` provides
 * what the operator API reads and calls: the other contexts' contract tokens, `CONTROL_PLANE_API`,
 * `PUBLIC_EVENT_LOG`, `CLOCK`, `METRICS` and the control store (`INFRASTRUCTURE`) — the platform's token
 * bridge embedded (`TokenBridgeModule.from`), transport clients distributed.
 */
@Module({})
export class OperatorModule {
  static forRoot(options: { platform: DynamicModule; backoffice: BackofficeOptions }): DynamicModule {
    return {
      module: OperatorModule,
      imports: [options.platform, BackofficeModule.forRoot(options.backoffice)],
      controllers: [...OPERATOR_CONTROLLERS, ...ENVIRONMENT_CONTROLLERS],
      providers: [{ provide: APP_GUARD, useClass: OperatorGuard }],
    };
  }
}
