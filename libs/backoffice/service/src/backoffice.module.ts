import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AUDIT_TRAIL } from '@cip/backoffice/contract';
import {
  Infrastructure,
  INFRASTRUCTURE,
  PROCESS_HEALTH,
  type ProcessHealthReporter,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { SystemHealthService } from './health/system-health.service';
import { AuditTrailService } from './audit/audit-trail.service';
import { OPERATIONS_PROVIDERS } from './operations';
import { openStaffAdministration, type StaffAdministration } from './staff-administration';
import type { OpenStaffCredentialStore } from './staff/staff-credential-store.port';
import { StaffDirectory } from './staff/staff-directory';
import { StaffService } from './staff/staff.service';

export interface BackofficeOptions {
  /**
   * The staff credential store: `SqliteStaffCredentialStore.opener(staffCredentialsFile(DATA_DIR))` embedded,
   * `mongoStaffCredentials({mongoUrl})` distributed.
   */
  openCredentials: OpenStaffCredentialStore;
  /** The platform's master key (PERSONAL_DATA_MASTER_KEY): credentials are sealed, CSRF tokens keyed, under keys derived from it. */
  masterKey: Buffer;
  /** The dashboard's page of an invitation token. */
  invitationUrl(token: string): string;
}

export const BACKOFFICE_OPTIONS = Symbol('BACKOFFICE_OPTIONS');
const STAFF_ADMINISTRATION = Symbol('STAFF_ADMINISTRATION');

/**
 * The backoffice's services in the operator app: staff, sessions, the audit trail (under AUDIT_TRAIL) and
 * what the environment pages do (OPERATIONS_PROVIDERS). The control store comes from INFRASTRUCTURE, the
 * other contexts' contracts from the app (the platform's token bridge embedded).
 */
@Module({})
export class BackofficeModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(STAFF_ADMINISTRATION) private readonly administration: StaffAdministration) {}

  static forRoot(options: BackofficeOptions): DynamicModule {
    return {
      module: BackofficeModule,
      global: true,
      providers: [
        { provide: BACKOFFICE_OPTIONS, useValue: options },
        {
          provide: STAFF_ADMINISTRATION,
          inject: [INFRASTRUCTURE, CLOCK],
          useFactory: (infrastructure: Infrastructure, clock: Clock) =>
            openStaffAdministration({
              ...options,
              eventStore: infrastructure.scope('control').eventStore,
              clock,
            }),
        },
        {
          provide: StaffDirectory,
          inject: [STAFF_ADMINISTRATION],
          useFactory: (a: StaffAdministration) => a.directory,
        },
        {
          provide: StaffService,
          inject: [STAFF_ADMINISTRATION],
          useFactory: (a: StaffAdministration) => a.staff,
        },
        {
          provide: AuditTrailService,
          inject: [STAFF_ADMINISTRATION],
          useFactory: (a: StaffAdministration) => a.audit,
        },
        { provide: AUDIT_TRAIL, useExisting: AuditTrailService },
        {
          provide: SystemHealthService,
          inject: [CLOCK, PROCESS_HEALTH],
          useFactory: (clock: Clock, reporter: ProcessHealthReporter | null) => {
            if (!reporter) {
              throw new Error(
                "The operator app's InfrastructureModule needs a `process` (the health page's reports)",
              );
            }
            return new SystemHealthService(clock, reporter);
          },
        },
        ...OPERATIONS_PROVIDERS,
      ],
      exports: [
        StaffDirectory,
        StaffService,
        AuditTrailService,
        AUDIT_TRAIL,
        SystemHealthService,
        BACKOFFICE_OPTIONS,
        ...OPERATIONS_PROVIDERS,
      ],
    };
  }

  async onModuleInit(): Promise<void> {
    await this.administration.directory.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.administration.close();
  }
}
