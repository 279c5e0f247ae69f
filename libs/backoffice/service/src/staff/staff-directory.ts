import type { AuditEntry, AuditFilter } from '@cip/backoffice/contract';
import {
  AUDIT_STREAM_PREFIX,
  auditEvents,
  STAFF_STREAM_PREFIX,
  staffDecider,
  staffEvents,
  type StaffRecord,
  type StaffState,
  UNKNOWN_EMAIL_STREAM_PREFIX,
  unknownEmailDecider,
  unknownEmailEvents,
  type UnknownEmailState,
} from '@cip/backoffice/domain';
import { auditMatches } from '@cip/backoffice/read-models';
import { LiveLogFold, type RecordedEvent } from '@cip/shared/eventing';

/**
 * The staff accounts, the audit trail and the lockouts of unknown emails as the operator API reads them:
 * folded in memory from the control store's `stf-`, `aud-` and `stfunknown-` streams (like the
 * distributor directory: the control scope is small) and kept live by a subscription (`LiveLogFold`); every
 * read first catches up with the log, so a change made a moment ago by the CLI (another process) is seen
 * at once.
 */
export class StaffDirectory extends LiveLogFold {
  private readonly staff = new Map<string, StaffRecord>();
  private readonly byEmail = new Map<string, string>();
  /** The failed sign-ins and lockouts of emails no account has, by stream id (`stfunknown-<hash>`). */
  private readonly unknownEmails = new Map<string, UnknownEmailState>();
  /** Oldest first, with the log position each entry was recorded at (the cursor of the audit list). */
  private readonly audit: { position: number; entry: AuditEntry }[] = [];

  protected fold(recorded: RecordedEvent): void {
    if (recorded.streamId.startsWith(STAFF_STREAM_PREFIX)) {
      const event = staffEvents.read(recorded);
      const state: StaffState = this.staff.get(recorded.streamId) ?? staffDecider.initialState();
      const next = staffDecider.evolve(state, event);
      if (next.status === 'absent') return;
      this.staff.set(recorded.streamId, next);
      this.byEmail.set(next.email, next.staffId);
    } else if (recorded.streamId.startsWith(UNKNOWN_EMAIL_STREAM_PREFIX)) {
      const state = this.unknownEmails.get(recorded.streamId) ?? unknownEmailDecider.initialState();
      this.unknownEmails.set(
        recorded.streamId,
        unknownEmailDecider.evolve(state, unknownEmailEvents.read(recorded)),
      );
    } else if (recorded.streamId.startsWith(AUDIT_STREAM_PREFIX)) {
      this.audit.push({ position: recorded.position, entry: auditEvents.read(recorded).data });
    }
  }

  get(staffId: string): StaffRecord | null {
    return this.staff.get(staffId) ?? null;
  }

  /** By email, as normalized by `normalizeEmail`. */
  findByEmail(email: string): StaffRecord | null {
    const staffId = this.byEmail.get(email);
    return staffId ? this.get(staffId) : null;
  }

  /** The lockout of an email no account has, by its stream (`unknownEmailStream`). */
  unknownEmail(streamId: string): UnknownEmailState {
    return this.unknownEmails.get(streamId) ?? unknownEmailDecider.initialState();
  }

  /** Oldest first. */
  list(): StaffRecord[] {
    return [...this.staff.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Newest first, `limit` at most, after the cursor (a log position) when given. */
  auditPage(
    filter: AuditFilter,
    limit: number,
    before?: number,
  ): { entries: AuditEntry[]; next: number | null } {
    const entries: AuditEntry[] = [];
    let last = 0;
    for (let index = this.audit.length - 1; index >= 0; index--) {
      const { position, entry } = this.audit[index];
      if (before !== undefined && position >= before) continue;
      if (!auditMatches(entry, filter)) continue;
      if (entries.length === limit) return { entries, next: last };
      entries.push(entry);
      last = position;
    }
    return { entries, next: null };
  }
}

/** Emails are compared trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
