import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { TextField as MuiTextField } from '@mui/material';
import { Datagrid, FunctionField, List, Show, TextField, TextInput, useRecordContext } from 'react-admin';
import type { Environment } from '@cip/shared/contracts';
import { api } from '../api';
import { ActionButton } from '../actions';
import {
  display,
  KeyValues,
  LoadError,
  Loading,
  PageHeading,
  RowsTable,
  Section,
  ShowLink,
  when,
} from '../ui';

type Row = Record<string, unknown>;
// The webhooks contract's DeliveryAttempt, as far as the page reads it (that contract's index needs Node's types).
interface Attempt {
  at: string;
  statusCode: number | null;
  error: string | null;
}
const attemptsOf = (row: Row) => (Array.isArray(row.attempts) ? (row.attempts as Attempt[]) : []);

export function WebhookSubscriptionList({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="Webhook subscriptions" environment={environment} />
      <List
        resource={`${environment}/webhook-subscriptions`}
        title="Webhook subscriptions"
        exporter={false}
        filters={[<TextInput key="distributorId" source="distributorId" label="Distributor id" alwaysOn />]}
      >
        <Datagrid bulkActionButtons={false} rowClick="show">
          <FunctionField
            label="Id"
            render={(row: { id: string }) => (
              <ShowLink resource={`${environment}/webhook-subscriptions`} id={row.id} />
            )}
          />
          <TextField source="url" label="URL" sortable={false} />
          <TextField source="distributorId" label="Distributor" sortable={false} />
          <TextField source="status" sortable={false} emptyText="—" />
        </Datagrid>
      </List>
    </>
  );
}

function Deliveries({ environment }: { environment: Environment }) {
  const subscription = useRecordContext<Row & { id: string }>();
  const [status, setStatus] = useState('');
  const path = `/${environment}/webhook-subscriptions/${encodeURIComponent(String(subscription?.id))}/deliveries`;
  const deliveries = useQuery({
    queryKey: ['operator', path, status],
    queryFn: () => api<{ data: Row[] } | Row[]>(path, { query: { status } }),
    enabled: Boolean(subscription),
  });
  if (!subscription) return null;
  const rows = deliveries.data
    ? Array.isArray(deliveries.data)
      ? deliveries.data
      : deliveries.data.data
    : [];
  return (
    <>
      <Section title="Subscription">
        <KeyValues
          entries={Object.entries(subscription)
            .filter(([, value]) => value === null || typeof value !== 'object' || Array.isArray(value))
            .map(([key, value]) => [key, display(value)])}
        />
      </Section>
      <Section
        title="Delivery attempts"
        actions={
          <MuiTextField
            size="small"
            label="Delivery status"
            helperText="pending, succeeded, failed or cancelled; empty for all"
            value={status}
            onChange={(event) => setStatus(event.target.value.trim())}
            sx={{ minWidth: 220 }}
          />
        }
      >
        {deliveries.isPending && <Loading />}
        {deliveries.error && <LoadError error={deliveries.error} />}
        <RowsTable
          caption="Delivery attempts"
          rows={rows}
          rowKey={(row, index) => String(row.id ?? `${row.eventId}-${index}`)}
          columns={[
            { label: 'Event', render: (row) => display(row.eventId) },
            { label: 'Event name', render: (row) => display(row.eventName) },
            { label: 'Status', render: (row) => display(row.status) },
            { label: 'Redelivery', render: (row) => display(row.redelivery) },
            { label: 'Attempts', render: (row) => display(attemptsOf(row).length) },
            {
              label: 'Last answer',
              render: (row) => display(attemptsOf(row).at(-1)?.statusCode ?? attemptsOf(row).at(-1)?.error),
            },
            { label: 'Last attempt', render: (row) => when(attemptsOf(row).at(-1)?.at ?? row.createdAt) },
            { label: 'Next attempt', render: (row) => when(row.nextAttemptAt) },
            {
              label: 'Action',
              render: (row) =>
                typeof row.eventId === 'string' ? (
                  <ActionButton
                    label="Redeliver"
                    permission="support"
                    title={`Redeliver event ${row.eventId}`}
                    path={`/${environment}/events/${encodeURIComponent(row.eventId)}/redeliver`}
                  />
                ) : null,
            },
          ]}
          empty="No delivery attempts."
        />
      </Section>
    </>
  );
}

export function WebhookSubscriptionShow({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="Webhook subscription" environment={environment} />
      <Show resource={`${environment}/webhook-subscriptions`} title="Webhook subscription" actions={false}>
        <Deliveries environment={environment} />
      </Show>
    </>
  );
}
