/**
 * Which fields of a domain event are a person's personal data (name, email, phone, address, date of birth,
 * document number), and whose: the event's data field holding the id of the person (the subject) they
 * belong to. The event store seals those fields with the subject's own key before they reach the log and
 * opens them on read; once the key is erased the fields read as null in every event, every copy of the log
 * and every backup (crypto-shredding). Declared by each domain beside its events, keyed by event type.
 */
export interface PersonalFields {
  /** The data field holding the subject's id (for users and their KYCs, `userId`). */
  subject: string;
  /** The data fields that are personal data. They read as null once the subject was erased. */
  fields: readonly string[];
}

export type PersonalDataPolicy = Readonly<Record<string, PersonalFields>>;

/** A personal field as events and views carry it: its value, or null once its subject was erased. */
export type Erasable<T> = T | null;
