import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  AUTHORIZATIONS_API,
  type AuthorizationsApi,
  type AuthorizationStatus,
  type AuthorizationView,
} from '@cip/authorizations/contract';
import {
  AUDIT_LOG,
  type AuditEntry,
  type AuditLog,
  type CardDetail,
  type OperatorPage,
  type SearchResult,
  type TimelineEntry,
  type TransactionFilter,
  type TransactionItem,
  type UserDetail,
  type WalletSummary,
} from '@cip/backoffice/contract';
import { CARDS_API, type CardsApi, type CardView } from '@cip/cards/contract';
import { EVENTS_API, type EventsApi } from '@cip/events/contract';
import { KYC_API, type KycApi, type KycView } from '@cip/kyc/contract';
import type { Caller, Environment, FindPage, FindResult, PublicEvent } from '@cip/shared/contracts';
import { USER_LIFECYCLE_API, USERS_API, type UserLifecycleApi, type UsersApi } from '@cip/users/contract';
import { type TransactionRecord, WALLETS_API, type WalletsApi, type WalletView } from '@cip/wallets/contract';
import {
  WEBHOOKS_API,
  type WebhookDelivery,
  type WebhooksApi,
  type WebhookSubscriptionView,
} from '@cip/webhooks/contract';
import { filteredSource, type MergeSource, mergePages } from './merged-pages';
import { orNull, type Tenant, Tenants } from './tenants';

/** Which page of an operator list. */
export interface OperatorPageQuery {
  limit: number;
  cursor?: string;
}

/** How many of the latest authorizations, transactions and open holds the user page shows. */
const LATEST = 10;
/** The most cards, KYCs or open holds a user page lists (more than any user has). */
const ALL_OF_A_USER = 100;
const OPEN_HOLD_STATUSES: AuthorizationStatus[] = ['confirmed', 'partially_cleared'];

const findPage = (after: string | null, limit: number, direction: 'asc' | 'desc' = 'desc'): FindPage => ({
  sort: { field: 'createdAt', direction },
  page: 0,
  limit,
  ...(after ? { cursor: { startingAfter: after } } : {}),
});

const byId = <T extends { id: string }>(item: T) => item.id;

/** One distributor's list as a source of a merged page. */
function tenantSource<T extends { id: string }>(
  tenant: Tenant,
  read: (caller: Caller, page: FindPage) => Promise<FindResult<T>>,
  direction: 'asc' | 'desc' = 'desc',
  key = tenant.distributor.distributorId,
): MergeSource<T> {
  return { key, idOf: byId, read: (after, limit) => read(tenant.caller, findPage(after, limit, direction)) };
}

export function walletSummary(wallet: WalletView): WalletSummary {
  return {
    id: wallet.id,
    status: wallet.status,
    currency: wallet.currency,
    balance: wallet.balance,
    held: wallet.pendingHolds,
    available: wallet.availableBalance,
    complianceHold: wallet.complianceHold,
    depositAddress: wallet.depositAddress,
  };
}

const authorizationItem = (authorization: AuthorizationView): TransactionItem => ({
  kind: 'authorization',
  id: authorization.id,
  createdAt: authorization.createdAt,
  authorization,
});

const transactionItem = (transaction: TransactionRecord): TransactionItem => ({
  // Card movements of the ledger are shown as their authorizations (filtered out before this).
  kind: transaction.type as Exclude<TransactionItem['kind'], 'authorization'>,
  id: transaction.id,
  createdAt: transaction.createdAt,
  transaction,
});

const timelineId = (entry: TimelineEntry) => (entry.kind === 'audit' ? entry.entry.id : entry.eventId);

const eventEntry = (event: PublicEvent): TimelineEntry => ({
  kind: 'event',
  at: event.createdAt,
  eventId: event.eventId,
  eventName: event.eventName,
  body: event,
});

/**
 * The reads of the environment pages (docs/operator-api.md): every distributor's data of one environment,
 * through the other contexts' contracts only. Every read takes the environment from the path, so a page
 * of one environment never shows the other's data.
 */
@Injectable()
export class OperatorQueries {
  constructor(
    private readonly tenants: Tenants,
    @Inject(USERS_API) private readonly users: UsersApi,
    @Inject(USER_LIFECYCLE_API) private readonly lifecycle: UserLifecycleApi,
    @Inject(KYC_API) private readonly kycs: KycApi,
    @Inject(CARDS_API) private readonly cards: CardsApi,
    @Inject(WALLETS_API) private readonly wallets: WalletsApi,
    @Inject(AUTHORIZATIONS_API) private readonly authorizations: AuthorizationsApi,
    @Inject(EVENTS_API) private readonly events: EventsApi,
    @Inject(WEBHOOKS_API) private readonly webhooks: WebhooksApi,
    /** The audit trail's read model (the backoffice app provides it); without it timelines show Events only. */
    @Optional() @Inject(AUDIT_LOG) private readonly auditLog: AuditLog | null = null,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // Search
  // -------------------------------------------------------------------------------------------------

  /**
   * `q` by its shape: a user id (`usr-`), an email (has `@`), a phone in E.164 (`+` and digits), a card id
   * (`crd-`), an authorization (`aut-`) or wallet transaction (`txn-`) id, or four digits (cards by last4).
   * Anything else finds nothing.
   */
  async search(environment: Environment, q: string): Promise<SearchResult> {
    const result: SearchResult = { users: [], cards: [], transactions: [] };
    const each = async <T>(lookup: (caller: Caller) => Promise<T | null>): Promise<T[]> => {
      const tenants = await this.tenants.of(environment);
      const found = await Promise.all(tenants.map((tenant) => orNull(lookup(tenant.caller))));
      return found.filter((item): item is Awaited<T> => item !== null) as T[];
    };
    const query = q.trim();
    if (query.startsWith('usr-')) result.users = await each((c) => this.lifecycle.findUser(c, query));
    else if (query.includes('@'))
      result.users = await each(
        async (c) => (await this.users.listUsers(c, { email: query }, findPage(null, 1))).items[0] ?? null,
      );
    else if (/^\+[1-9]\d{6,14}$/.test(query))
      result.users = await each((c) => this.lifecycle.findUserByPhone(c, query));
    else if (query.startsWith('crd-')) result.cards = await each((c) => this.cards.getCard(c, query));
    else if (/^\d{4}$/.test(query)) result.cards = (await this.cardsByLast4(environment, query)).data;
    else if (query.startsWith('aut-'))
      result.transactions = (await each((c) => this.authorizations.getAuthorization(c, query))).map(
        authorizationItem,
      );
    else if (query.startsWith('txn-'))
      result.transactions = (await each((c) => this.wallets.getTransaction(c, query))).map(transactionItem);
    return result;
  }

  /** Cards by their last four digits (and user), newest first, over every distributor. */
  async cardsByLast4(
    environment: Environment,
    last4: string,
    userId?: string,
    page: OperatorPageQuery = { limit: 25 },
  ): Promise<OperatorPage<CardView>> {
    const tenants = await this.tenants.of(environment);
    return mergePages(
      tenants.map((tenant) => tenantSource(tenant, (c, p) => this.cards.listCards(c, { last4, userId }, p))),
      { ...page, order: (card) => card.createdAt, direction: 'desc' },
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Users and cards
  // -------------------------------------------------------------------------------------------------

  private ownerOfUser(environment: Environment, userId: string) {
    return this.tenants.owner(environment, 'User', userId, (c) => this.lifecycle.findUser(c, userId));
  }

  async userDetail(environment: Environment, userId: string): Promise<UserDetail> {
    const { tenant, found: user } = await this.ownerOfUser(environment, userId);
    const { caller, distributor } = tenant;
    const all = findPage(null, ALL_OF_A_USER);
    const [kycs, wallet, holds, cards, authorizations, transactions] = await Promise.all([
      this.kycs.listKycs(caller, { userId }, all),
      this.wallets.findUserWallet(caller, userId),
      Promise.all(
        OPEN_HOLD_STATUSES.map((status) =>
          this.authorizations.listAuthorizations(caller, { userId, status }, all),
        ),
      ),
      this.cards.listCards(caller, { userId }, all),
      this.authorizations.listAuthorizations(caller, { userId }, findPage(null, LATEST)),
      this.wallets.listTransactions(caller, { userId }, findPage(null, LATEST)),
    ]);
    return {
      user,
      distributor: { id: distributor.distributorId, name: distributor.name },
      kycs: kycs.items.map((resource) => resource.kyc),
      wallet: wallet && walletSummary(wallet),
      holds: holds
        .flatMap((page) => page.items)
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)),
      cards: cards.items,
      authorizations: authorizations.items,
      transactions: transactions.items,
    };
  }

  async cardDetail(environment: Environment, cardId: string): Promise<CardDetail> {
    const { tenant, found: card } = await this.tenants.owner(environment, 'Card', cardId, (c) =>
      this.cards.getCard(c, cardId),
    );
    const [user, authorizations] = await Promise.all([
      this.lifecycle.findUser(tenant.caller, card.userId),
      this.authorizations.listAuthorizations(tenant.caller, { cardId }, findPage(null, LATEST)),
    ]);
    return { card, user, authorizations: authorizations.items };
  }

  /**
   * Every public Event of the user (their wallet's, cards', KYCs' and authorizations' included: each
   * carries the user id) merged with the staff actions on the user, newest first.
   */
  async userTimeline(
    environment: Environment,
    userId: string,
    page: OperatorPageQuery,
  ): Promise<OperatorPage<TimelineEntry>> {
    const { tenant } = await this.ownerOfUser(environment, userId);
    return this.timeline(tenant.caller, userId, { userId }, page);
  }

  /** The Events about the card (its own, and its authorizations') merged with the staff actions on it. */
  async cardTimeline(
    environment: Environment,
    cardId: string,
    page: OperatorPageQuery,
  ): Promise<OperatorPage<TimelineEntry>> {
    const { tenant, found: card } = await this.tenants.owner(environment, 'Card', cardId, (c) =>
      this.cards.getCard(c, cardId),
    );
    const aboutTheCard = (event: PublicEvent) =>
      event.eventTargetId === cardId || event.data.cardId === cardId;
    return this.timeline(tenant.caller, card.userId, { targetId: cardId }, page, aboutTheCard);
  }

  private timeline(
    caller: Caller,
    userId: string,
    audited: { userId?: string; targetId?: string },
    page: OperatorPageQuery,
    keep?: (event: PublicEvent) => boolean,
  ): Promise<OperatorPage<TimelineEntry>> {
    const events: MergeSource<TimelineEntry> = {
      key: 'events',
      idOf: timelineId,
      read: async (after, limit) => {
        const result = await this.events.listEvents(caller, { userId }, findPage(after, limit));
        return { items: result.items.map(eventEntry), hasMore: result.hasMore };
      },
    };
    const sources = [
      keep
        ? filteredSource(events, (entry) => entry.kind === 'event' && keep(entry.body as PublicEvent))
        : events,
    ];
    if (this.auditLog) sources.push(auditSource(this.auditLog, caller.environment, audited));
    return mergePages(sources, { ...page, order: (entry) => entry.at, direction: 'desc' });
  }

  // -------------------------------------------------------------------------------------------------
  // Transactions
  // -------------------------------------------------------------------------------------------------

  /**
   * Authorizations and wallet transactions, newest first. `kind` picks one of them (`authorization`, or a
   * wallet transaction type); `cardId` keeps authorizations only (wallet movements have no card); `status`
   * is the authorization's or the wallet transaction's own; `from` and `to` bound `createdAt`.
   */
  async transactions(
    environment: Environment,
    filter: TransactionFilter,
    page: OperatorPageQuery,
  ): Promise<OperatorPage<TransactionItem>> {
    const tenants = await this.tenants.of(environment, filter.distributorId);
    const withAuthorizations = !filter.kind || filter.kind === 'authorization';
    const withWallet = filter.kind !== 'authorization' && !filter.cardId;
    const inRange = (item: TransactionItem) => !filter.to || item.createdAt <= filter.to;
    const pastRange = (item: TransactionItem) => !!filter.from && item.createdAt < filter.from;
    const sources = tenants.flatMap((tenant) => {
      const list: MergeSource<TransactionItem>[] = [];
      if (withAuthorizations)
        list.push({
          key: `${tenant.distributor.distributorId}:aut`,
          idOf: byId,
          read: async (after, limit) => {
            const result = await this.authorizations.listAuthorizations(
              tenant.caller,
              { userId: filter.userId, cardId: filter.cardId, status: filter.status as AuthorizationStatus },
              findPage(after, limit),
            );
            return { items: result.items.map(authorizationItem), hasMore: result.hasMore };
          },
        });
      if (withWallet)
        list.push(
          // Card movements of the ledger (type `authorization`) are listed as their authorizations.
          filteredSource<TransactionItem>(
            {
              key: `${tenant.distributor.distributorId}:txn`,
              idOf: byId,
              read: async (after, limit) => {
                const result = await this.wallets.listTransactions(
                  tenant.caller,
                  { userId: filter.userId, type: filter.kind, status: filter.status },
                  findPage(after, limit),
                );
                return { items: result.items.map(transactionItem), hasMore: result.hasMore };
              },
            },
            (item) => (item.kind as string) !== 'authorization',
          ),
        );
      return list;
    });
    const bounded =
      filter.from || filter.to
        ? sources.map((source) => filteredSource(source, inRange, pastRange))
        : sources;
    return mergePages(bounded, { ...page, order: (item) => item.createdAt, direction: 'desc' });
  }

  /** One authorization (`aut-`) or wallet transaction (`txn-`), whoever's it is. */
  async transaction(environment: Environment, id: string): Promise<TransactionItem> {
    if (id.startsWith('aut-'))
      return authorizationItem(
        (
          await this.tenants.owner(environment, 'Transaction', id, (c) =>
            this.authorizations.getAuthorization(c, id),
          )
        ).found,
      );
    return transactionItem(
      (await this.tenants.owner(environment, 'Transaction', id, (c) => this.wallets.getTransaction(c, id)))
        .found,
    );
  }

  // -------------------------------------------------------------------------------------------------
  // KYC review queue, webhooks
  // -------------------------------------------------------------------------------------------------

  /** Submitted KYCs (`completed`: the user is done, a reviewer is not), oldest first. */
  async kycReviewQueue(environment: Environment, page: OperatorPageQuery): Promise<OperatorPage<KycView>> {
    const tenants = await this.tenants.of(environment);
    return mergePages(
      tenants.map((tenant) =>
        tenantSource(
          tenant,
          async (c, p) => {
            const result = await this.kycs.listKycs(c, { status: 'completed' }, p);
            return { items: result.items.map((resource) => resource.kyc), hasMore: result.hasMore };
          },
          'asc',
        ),
      ),
      { ...page, order: (kyc) => kyc.createdAt, direction: 'asc' },
    );
  }

  async webhookSubscriptions(
    environment: Environment,
    distributorId: string | undefined,
    page: OperatorPageQuery,
  ): Promise<OperatorPage<WebhookSubscriptionView>> {
    const tenants = await this.tenants.of(environment, distributorId);
    return mergePages(
      tenants.map((tenant) => tenantSource(tenant, (c, p) => this.webhooks.listSubscriptions(c, {}, p))),
      { ...page, order: (subscription) => subscription.createdAt, direction: 'desc' },
    );
  }

  async webhookDeliveries(
    environment: Environment,
    subscriptionId: string,
    status: string | undefined,
    page: OperatorPageQuery,
  ): Promise<OperatorPage<WebhookDelivery>> {
    const { tenant } = await this.tenants.owner(environment, 'Webhook subscription', subscriptionId, (c) =>
      this.webhooks.getSubscription(c, subscriptionId),
    );
    return mergePages(
      [tenantSource(tenant, (c, p) => this.webhooks.listDeliveries(c, subscriptionId, { status }, p))],
      { ...page, order: (delivery) => delivery.createdAt, direction: 'desc' },
    );
  }
}

/** The most audit entries one user or card timeline merges (staff actions on one user are a handful). */
const AUDIT_ENTRIES_PER_SUBJECT = 1000;
const AUDIT_PAGE = 100;

/**
 * The staff actions on one user or card as a merge source. The audit log pages with cursors of its own
 * (not item ids), so the entries on the subject are read whole, then served from the entry named by the
 * merged cursor: they are few (AUDIT_ENTRIES_PER_SUBJECT bounds the read).
 */
function auditSource(
  auditLog: AuditLog,
  environment: Environment,
  filter: { userId?: string; targetId?: string },
): MergeSource<TimelineEntry> {
  return {
    key: 'audit',
    idOf: timelineId,
    async read(after, limit) {
      const entries: AuditEntry[] = [];
      let cursor: string | undefined;
      do {
        const page = await auditLog.list(filter, { limit: AUDIT_PAGE, cursor });
        entries.push(...page.data.filter((entry) => entry.environment === environment));
        cursor = page.nextCursor ?? undefined;
      } while (cursor && entries.length < AUDIT_ENTRIES_PER_SUBJECT);
      const start = after ? entries.findIndex((entry) => entry.id === after) + 1 : 0;
      const items = entries
        .slice(start, start + limit)
        .map((entry): TimelineEntry => ({ kind: 'audit', at: entry.at, entry }));
      return { items, hasMore: start + limit < entries.length };
    },
  };
}
