/**
 * The personal-data key store port: one data key per subject (a user), kept outside the event log so that
 * deleting it erases the subject's personal data from every event, every copy of the log and every backup
 * of it. Keys are stored wrapped (sealed with the platform's master key, see PersonalDataVault): a copy of
 * the key store alone discloses nothing either.
 */
export type SubjectKey =
  | { status: 'active'; wrappedKey: string }
  /** Erased keys leave a tombstone, so that no new key is ever made for an erased subject. */
  | { status: 'erased'; erasedAt: string };

export interface PersonalDataKeyStore {
  /** The subject's key, its tombstone, or null when it never had one. */
  get(subjectId: string): Promise<SubjectKey | null>;
  /**
   * Stores `wrappedKey` as the subject's key unless the subject already has one (of two concurrent
   * creations exactly one wins, and both get the winner) or was erased (the tombstone is returned).
   * Durable once it resolves: events sealed with the key may be appended right after.
   */
  create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey>;
  /**
   * Deletes the subject's key for good and leaves a tombstone (also for a subject that had none). Erasing
   * twice keeps the first time. The adapter does what it can so that the key's bytes leave its files.
   */
  erase(subjectId: string, at: string): Promise<void>;
  /**
   * A value that differs from the last one returned whenever keys may have changed other than through this
   * instance (another process, the CLI, erased one), read synchronously and cheaply. The vault keeps data
   * keys unwrapped between calls only while it stays the same; a store that cannot tell leaves it out and
   * its keys are looked up again on every call.
   */
  changeMark?(): number;
  close(): Promise<void>;
}
