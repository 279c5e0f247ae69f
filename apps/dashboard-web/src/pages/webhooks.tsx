import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MenuItem, TextField as MuiTextField } from '@mui/material';
import { Datagrid, List, Show, TextField, TextInput, useRecordContext } from 'react-admin';
import type { Environment } from '@cip/shared/contracts';
import { api } from '../api';
import { ActionButton } from '../actions';
import { display, KeyValues, LoadError, Loading, PageHeading, RowsTable, Section, when } from '../ui';

type Row = Record<string, unknown>;

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
          <TextField source="id" sortable={false} />
          <TextField source="url" label="URL" sortable={false} />
          <TextField source="distributorId" label="Distributor" sortable={false} />
          <TextField source="status" sortable={false} emptyText="—" />
        </Datagrid>
      </List>
    </>
  );
}

const DELIVERY_STATUSES = ['all', 'pending', 'delivered', 'failed'] as const;

function Deliveries({ environment }: { environment: Environment }) {
  const subscription = useRecordContext<Row & { id: string }>();
  const [status, setStatus] = useState<string>('all');
  const path = `/${environment}/webhook-subscriptions/${encodeURIComponent(String(subscription?.id))}/deliveries`;
  const deliveries = useQuery({
    queryKey: ['operator', path, status],
    queryFn: () => api<{ data: Row[] } | Row[]>(path, { query: { status: status === 'all' ? undefined : status } }),
    enabled: Boolean(subscription),
  });
  if (!subscription) return null;
  const rows = deliveries.data ? (Array.isArray(deliveries.data) ? deliveries.data : deliveries.data.data) : [];
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
            select
            size="small"
            label="Delivery status"
            value={status}
            onChange={(event) => setStatus(event.target.value)}
            sx={{ minWidth: 180 }}
          >
            {DELIVERY_STATUSES.map((value) => (
              <MenuItem key={value} value={value}>
                {value}
              </MenuItem>
            ))}
          </MuiTextField>
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
            { label: 'Type', render: (row) => display(row.eventType ?? row.eventName ?? row.type) },
            { label: 'Status', render: (row) => display(row.status) },
            { label: 'Attempts', render: (row) => display(row.attempts ?? row.attempt) },
            { label: 'Response', render: (row) => display(row.responseStatus ?? row.statusCode) },
            { label: 'Last attempt', render: (row) => when(row.lastAttemptAt ?? row.at ?? row.createdAt) },
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
