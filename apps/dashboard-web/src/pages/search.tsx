import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Link as MuiLink, Stack, TextField } from '@mui/material';
import { Title } from 'react-admin';
import { Link } from 'react-router-dom';
import type { Environment } from '@cip/shared/contracts';
import { api } from '../api';
import { display, LoadError, Loading, money, PageHeading, RowsTable, Section, when } from '../ui';

type Row = Record<string, unknown>;
interface SearchAnswer {
  users: Row[];
  cards: Row[];
  transactions: Row[];
}

const rowsOf = (answer: unknown): Row[] =>
  Array.isArray(answer) ? answer : ((answer as { data?: Row[] } | undefined)?.data ?? []);

export function UserLink({ environment, id }: { environment: Environment; id: unknown }) {
  if (typeof id !== 'string') return <>—</>;
  return (
    <MuiLink component={Link} to={`/${environment}/users/${encodeURIComponent(id)}`}>
      {id}
    </MuiLink>
  );
}

export function CardLink({ environment, id }: { environment: Environment; id: unknown }) {
  if (typeof id !== 'string') return <>—</>;
  return (
    <MuiLink component={Link} to={`/${environment}/cards/${encodeURIComponent(id)}`}>
      {id}
    </MuiLink>
  );
}

export function TransactionLink({ environment, id }: { environment: Environment; id: unknown }) {
  if (typeof id !== 'string') return <>—</>;
  return (
    <MuiLink component={Link} to={`/${environment}/transactions/${encodeURIComponent(id)}/show`}>
      {id}
    </MuiLink>
  );
}

export function CardsTable({
  environment,
  cards,
  caption,
}: {
  environment: Environment;
  cards: Row[];
  caption: string;
}) {
  return (
    <RowsTable
      caption={caption}
      rows={cards}
      rowKey={(card) => String(card.id)}
      columns={[
        { label: 'Card', render: (card) => <CardLink environment={environment} id={card.id} /> },
        { label: 'Number', render: (card) => display(card.maskedPan ?? card.last4) },
        { label: 'Type', render: (card) => display(card.type) },
        { label: 'Status', render: (card) => display(card.status) },
        { label: 'Blocks', render: (card) => display(card.blocks) },
        { label: 'User', render: (card) => <UserLink environment={environment} id={card.userId} /> },
      ]}
    />
  );
}

/** A transactions-page line (`{kind, id, createdAt, authorization | transaction}`) or a bare record. */
export function inner(row: Row): Row {
  return (row.authorization ?? row.transaction ?? row) as Row;
}

export function kindOf(row: Row): string {
  if (typeof row.kind === 'string') return row.kind;
  return 'merchantName' in row ? 'authorization' : String(row.type ?? '—');
}

export function TransactionsTable({
  environment,
  rows,
  caption,
}: {
  environment: Environment;
  rows: Row[];
  caption: string;
}) {
  return (
    <RowsTable
      caption={caption}
      rows={rows}
      rowKey={(row) => String(row.id)}
      columns={[
        { label: 'Id', render: (row) => <TransactionLink environment={environment} id={row.id} /> },
        { label: 'Kind', render: (row) => kindOf(row) },
        { label: 'Status', render: (row) => display(inner(row).status) },
        { label: 'Amount', render: (row) => money(inner(row).amount, inner(row).currency) },
        { label: 'Merchant', render: (row) => display(inner(row).merchantName) },
        { label: 'Card', render: (row) => <CardLink environment={environment} id={inner(row).cardId} /> },
        { label: 'At', render: (row) => when(row.createdAt) },
      ]}
    />
  );
}

export function SearchPage({ environment }: { environment: Environment }) {
  const [q, setQ] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [last4, setLast4] = useState('');
  const [userId, setUserId] = useState('');
  const [cardQuery, setCardQuery] = useState<{ last4: string; userId: string } | null>(null);

  const search = useQuery({
    queryKey: ['operator', environment, 'search', submitted],
    queryFn: () => api<SearchAnswer>(`/${environment}/search`, { query: { q: submitted } }),
    enabled: submitted !== '',
  });
  const cards = useQuery({
    queryKey: ['operator', environment, 'cards', cardQuery],
    queryFn: () => api(`/${environment}/cards`, { query: { ...cardQuery } }),
    enabled: cardQuery !== null,
  });

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(q.trim());
  };
  const onCards = (event: FormEvent) => {
    event.preventDefault();
    setCardQuery({ last4: last4.trim(), userId: userId.trim() });
  };

  return (
    <>
      <Title title="Search" />
      <PageHeading title="Search" environment={environment} />
      <Section title="Users, cards and transactions">
        <Stack component="form" direction="row" spacing={2} onSubmit={onSearch} role="search">
          <TextField
            label="User id, email or phone; card id; transaction id"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            sx={{ minWidth: 420 }}
            size="small"
          />
          <Button type="submit" variant="contained">
            Search
          </Button>
        </Stack>
        {search.isFetching && <Loading />}
        {search.error && <LoadError error={search.error} />}
      </Section>
      {search.data && (
        <>
          <Section title="Users">
            <RowsTable
              caption="Users found"
              rows={search.data.users ?? []}
              rowKey={(user) => String(user.id)}
              columns={[
                { label: 'User', render: (user) => <UserLink environment={environment} id={user.id} /> },
                { label: 'Email', render: (user) => display(user.email) },
                {
                  label: 'Name',
                  render: (user) => display([user.firstName, user.lastName].filter(Boolean).join(' ')),
                },
                { label: 'Status', render: (user) => display(user.status) },
              ]}
            />
          </Section>
          <Section title="Cards">
            <CardsTable environment={environment} cards={search.data.cards ?? []} caption="Cards found" />
          </Section>
          <Section title="Transactions">
            <TransactionsTable
              environment={environment}
              rows={search.data.transactions ?? []}
              caption="Transactions found"
            />
          </Section>
        </>
      )}
      <Section title="Cards by last four digits">
        <Stack component="form" direction="row" spacing={2} onSubmit={onCards}>
          <TextField
            label="Last four digits"
            value={last4}
            required
            size="small"
            slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 4 } }}
            onChange={(e) => setLast4(e.target.value)}
          />
          <TextField
            label="User id (optional)"
            value={userId}
            size="small"
            onChange={(e) => setUserId(e.target.value)}
          />
          <Button type="submit" variant="contained">
            Find cards
          </Button>
        </Stack>
        {cards.isFetching && <Loading />}
        {cards.error && <LoadError error={cards.error} />}
        {cards.data !== undefined && (
          <CardsTable
            environment={environment}
            cards={rowsOf(cards.data)}
            caption="Cards with these digits"
          />
        )}
      </Section>
    </>
  );
}
