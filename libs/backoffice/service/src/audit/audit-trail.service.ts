import type {
  AuditEntry,
  AuditFilter,
  AuditRecordInput,
  AuditTrail,
  StaffPrincipal,
  StaffRole,
} from '@cip/backoffice/contract';
import type { StaffActionRecorded } from '@cip/backoffice/domain';
import { DomainError } from '@cip/shared/contracts';
import { envelope, type EventStore } from '@cip/shared/eventing';
import { type Clock, newId } from '@cip/shared/runtime';
import type { StaffDirectory } from '../staff/staff-directory';

/** Who acted, as the audit trail names them: a signed-in staff member, or who tried to sign in. */
export type AuditActor = { id: string; email: string; role: StaffRole };

/**
 * A staff member outside any session: the CLI's operator (`staff create-admin`), or a sign-in for an email
 * no account has (recorded with id `unknown` and the least role).
 */
export const CLI_ACTOR: AuditActor = { id: 'cli', email: 'cli', role: 'admin' };
export const unknownActor = (email: string): AuditActor => ({
  id: 'unknown',
  email: email.slice(0, 254),
  role: 'viewer',
});

const CURSOR = /^[1-9]\d{0,15}$/;

/**
 * The audit trail: every staff action is one event (`StaffActionRecorded`) on a stream of its own
 * (`aud-<uuid>`) in the control scope, whatever its outcome. Read back newest first through the staff
 * directory's fold of the log.
 */
export class AuditTrailService implements AuditTrail {
  constructor(
    private readonly store: EventStore,
    private readonly directory: StaffDirectory,
    private readonly clock: Clock,
  ) {}

  record(staff: StaffPrincipal, entry: AuditRecordInput): Promise<AuditEntry> {
    return this.recordAs({ id: staff.staffId, email: staff.email, role: staff.role }, entry);
  }

  async recordAs(actor: AuditActor, input: AuditRecordInput): Promise<AuditEntry> {
    const id = newId('aud');
    const at = this.clock.now().toISOString();
    const entry: AuditEntry = {
      id,
      at,
      staff: actor,
      action: input.action,
      environment: input.environment,
      target: { type: input.target.type, id: input.target.id },
      userId: input.userId ?? null,
      reason: input.reason ?? null,
      outcome: input.outcome ?? 'succeeded',
      errorCode: input.errorCode ?? null,
    };
    const event: StaffActionRecorded = { type: 'StaffActionRecorded', data: { ...entry } };
    await this.store.append(id, [envelope(event, { occurredAt: at, correlationId: id })], {
      expectedRevision: 'no_stream',
    });
    return entry;
  }

  /** Newest first; `cursor` is the `nextCursor` of the page before. */
  async list(
    filter: AuditFilter,
    page: { limit: number; cursor?: string },
  ): Promise<{ data: AuditEntry[]; nextCursor: string | null }> {
    if (page.cursor !== undefined && !CURSOR.test(page.cursor)) {
      throw new DomainError('validation_error', 'The cursor is not one this list gave', [
        { field: 'cursor', message: 'cursor must be the nextCursor of a previous page' },
      ]);
    }
    await this.directory.catchUp();
    const { entries, next } = this.directory.auditPage(
      filter,
      page.limit,
      page.cursor === undefined ? undefined : Number(page.cursor),
    );
    return { data: entries, nextCursor: next === null ? null : String(next) };
  }
}
