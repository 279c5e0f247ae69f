import { Schema, type Connection } from 'mongoose';
import {
  StaffSeals,
  type StaffCredentialStore,
  type StoredCredentials,
  type StoredInvitation,
  type StoredSession,
} from './staff-credential-store.port';

/** The staff member's id; password and TOTP secret sealed. */
interface CredentialsDocument {
  _id: string;
  password: string;
  totp: string;
  lastTotpStep: number;
}

/** The token's SHA-256; the TOTP secret sealed. */
interface InvitationDocument {
  _id: string;
  staffId: string;
  totp: string;
  expiresAt: string;
  usedAt: string | null;
}

/** The session id (`ses-...`); the cookie's value only as its SHA-256 (`idHash`, unique). */
interface SessionDocument {
  _id: string;
  idHash: string;
  staffId: string;
  createdAt: string;
  lastSeenAt: string;
  endedAt: string | null;
}

const DUPLICATE_KEY = 11000;

const SCHEMA_OPTIONS = {
  versionKey: false,
  strict: 'throw',
  // Acknowledged only once a majority of the replica set has it in its journal: no acknowledged write is
  // lost. Mongoose leaves it off operations inside a transaction, which take the transaction's instead.
  writeConcern: { w: 'majority', j: true },
} as const;
const nullableString = { type: String, default: null };

const credentialsSchema = new Schema<CredentialsDocument>(
  {
    _id: { type: String, required: true },
    password: { type: String, required: true },
    totp: { type: String, required: true },
    lastTotpStep: { type: Number, required: true },
  },
  SCHEMA_OPTIONS,
);

const invitationSchema = new Schema<InvitationDocument>(
  {
    _id: { type: String, required: true },
    staffId: { type: String, required: true },
    totp: { type: String, required: true },
    expiresAt: { type: String, required: true },
    usedAt: nullableString,
  },
  SCHEMA_OPTIONS,
);

const sessionSchema = new Schema<SessionDocument>(
  {
    _id: { type: String, required: true },
    idHash: { type: String, required: true },
    staffId: { type: String, required: true },
    createdAt: { type: String, required: true },
    lastSeenAt: { type: String, required: true },
    endedAt: nullableString,
  },
  SCHEMA_OPTIONS,
);
// A session is found by its cookie's hash: unique, so two sessions can never answer to one cookie.
sessionSchema.index({ idHash: 1 }, { unique: true, name: 'id_hash_unique' });
// Sign out everywhere and disabling end a staff member's open sessions (`endedAt: null`). A compound index
// rather than SQLite's partial one: a partial filter on a null equality is not accepted by every version.
sessionSchema.index({ staffId: 1, endedAt: 1 }, { name: 'sessions_of_staff' });

function modelsOf(connection: Connection) {
  return {
    credentials: connection.model('StaffCredentials', credentialsSchema, 'staff_credentials'),
    invitations: connection.model('StaffInvitation', invitationSchema, 'staff_invitations'),
    sessions: connection.model('StaffSession', sessionSchema, 'staff_sessions'),
  };
}
type StaffModels = ReturnType<typeof modelsOf>;

/**
 * The distributed runtime's staff credential store (`StaffCredentialStore`) with mongoose models on a
 * database of its own (`cip_staff_credentials`): `staff_credentials`, `staff_invitations`, `staff_sessions`.
 * Values are sealed as the SQLite adapter seals them (`StaffSeals`). The TOTP step and the invitation are
 * claimed with one conditional `findOneAndUpdate` each (the condition is the claim: of two racing calls one
 * matches), an invitation's claim and the credentials it sets commit in one transaction (MongoDB must be a
 * replica set, as the card vault already requires), and every write waits for a majority's journal.
 */
export class MongoStaffCredentialStore implements StaffCredentialStore {
  private readonly seals: StaffSeals;
  private readonly credentialsModel: StaffModels['credentials'];
  private readonly invitations: StaffModels['invitations'];
  private readonly sessions: StaffModels['sessions'];

  private constructor(
    private readonly connection: Connection,
    masterKey: Buffer,
    models: StaffModels,
    private readonly closesConnection: boolean,
  ) {
    this.seals = new StaffSeals(masterKey);
    this.credentialsModel = models.credentials;
    this.invitations = models.invitations;
    this.sessions = models.sessions;
  }

  /** The store on `connection`'s database; its collections and indexes are created if missing. */
  static async open(
    connection: Connection,
    masterKey: Buffer,
    options: { closesConnection?: boolean } = {},
  ): Promise<MongoStaffCredentialStore> {
    const models = modelsOf(connection);
    // init creates the collections (a transaction must not be the first to write one) and the indexes.
    await Promise.all(Object.values(models).map((model) => model.init()));
    return new MongoStaffCredentialStore(connection, masterKey, models, options.closesConnection ?? false);
  }

  async close(): Promise<void> {
    if (this.closesConnection) await this.connection.close();
  }

  async saveInvitation(tokenHash: string, invitation: Omit<StoredInvitation, 'usedAt'>): Promise<void> {
    await this.invitations.create({
      _id: tokenHash,
      ...this.seals.sealInvitation(invitation),
      usedAt: null,
    });
  }

  async invitation(tokenHash: string): Promise<StoredInvitation | null> {
    const doc = await this.invitations.findById(tokenHash).lean<InvitationDocument>();
    return doc && this.seals.openInvitation(doc);
  }

  async acceptInvitation(
    tokenHash: string,
    staffId: string,
    credentials: StoredCredentials,
    at: string,
  ): Promise<boolean> {
    const session = await this.connection.startSession();
    try {
      let accepted = false;
      // withTransaction runs the callback again on a transient error: `accepted` is set by the last run.
      await session.withTransaction(
        async () => {
          accepted = false;
          const claimed = await this.invitations.findOneAndUpdate(
            { _id: tokenHash, staffId, usedAt: null },
            { $set: { usedAt: at } },
            { session, projection: { _id: 1 } },
          );
          if (!claimed) return;
          await this.credentialsModel.updateOne(
            { _id: staffId },
            {
              $set: this.seals.sealCredentials(staffId, credentials),
            },
            { session, upsert: true },
          );
          accepted = true;
        },
        {
          writeConcern: { w: 'majority', journal: true },
          readConcern: { level: 'snapshot' },
          readPreference: 'primary',
        },
      );
      return accepted;
    } finally {
      await session.endSession();
    }
  }

  async credentials(staffId: string): Promise<StoredCredentials | null> {
    const doc = await this.credentialsModel.findById(staffId).lean<CredentialsDocument>();
    return doc && this.seals.openCredentials(staffId, doc);
  }

  async useTotpStep(staffId: string, step: number): Promise<boolean> {
    const claimed = await this.credentialsModel.findOneAndUpdate(
      { _id: staffId, lastTotpStep: { $lt: step } },
      { $set: { lastTotpStep: step } },
      { projection: { _id: 1 } },
    );
    return claimed !== null;
  }

  async createSession(idHash: string, session: Omit<StoredSession, 'endedAt'>): Promise<void> {
    try {
      await this.sessions.create({
        _id: session.sessionId,
        idHash,
        staffId: session.staffId,
        createdAt: session.createdAt,
        lastSeenAt: session.lastSeenAt,
        endedAt: null,
      });
    } catch (error) {
      // As SQLite's UNIQUE: a duplicate id or cookie hash is refused (256-bit random: a bug, never chance).
      if ((error as { code?: number }).code === DUPLICATE_KEY)
        throw new Error('A staff session with this id or cookie already exists');
      throw error;
    }
  }

  async sessionByHash(idHash: string): Promise<StoredSession | null> {
    const doc = await this.sessions.findOne({ idHash }).lean<SessionDocument>();
    return doc
      ? {
          sessionId: doc._id,
          staffId: doc.staffId,
          createdAt: doc.createdAt,
          lastSeenAt: doc.lastSeenAt,
          endedAt: doc.endedAt,
        }
      : null;
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    await this.sessions.updateOne(
      { _id: sessionId, endedAt: null, lastSeenAt: { $lt: at } },
      { $set: { lastSeenAt: at } },
    );
  }

  async endSession(sessionId: string, at: string): Promise<boolean> {
    const ended = await this.sessions.findOneAndUpdate(
      { _id: sessionId, endedAt: null },
      { $set: { endedAt: at } },
      { projection: { _id: 1 } },
    );
    return ended !== null;
  }

  async endSessionsOf(staffId: string, at: string): Promise<number> {
    const result = await this.sessions.updateMany({ staffId, endedAt: null }, { $set: { endedAt: at } });
    return result.modifiedCount;
  }
}
