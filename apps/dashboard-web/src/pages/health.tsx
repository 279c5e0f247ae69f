import { Chip } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Title } from 'react-admin';
import type { SystemHealthView } from '@cip/backoffice/contract';
import { api } from '../api';
import { KeyValues, LoadError, Loading, PageHeading, RowsTable, Section, when } from '../ui';

/**
 * Every process of the platform (whether it still reports), consumer lag, the /v1 API's recent 5xx and the
 * webhook backlog, from the reports each process writes from its own metrics.
 */
export function HealthPage() {
  const health = useQuery({
    queryKey: ['operator', '/health'],
    queryFn: () => api<SystemHealthView>('/health'),
    refetchInterval: 15_000,
  });
  const h = health.data;
  // The consumers furthest behind first: those are the ones to look at.
  const consumers = h ? [...h.consumers].sort((a, b) => b.lagEvents - a.lagEvents) : [];
  return (
    <>
      <Title title="System health" />
      <PageHeading title="System health" />
      {health.isPending && <Loading />}
      {health.error && <LoadError error={health.error} />}
      {h && (
        <>
          <KeyValues entries={[['Measured at', when(h.at)]]} />
          <Section title="Processes">
            <RowsTable
              caption="Processes"
              rows={h.processes}
              rowKey={(p) => p.instance}
              columns={[
                { label: 'Process', render: (p) => p.process },
                { label: 'Instance', render: (p) => p.instance },
                { label: 'Started', render: (p) => when(p.startedAt) },
                { label: 'Last report', render: (p) => when(p.reportedAt) },
                {
                  label: 'Status',
                  render: (p) => (
                    <Chip
                      size="small"
                      color={p.reporting ? 'success' : 'error'}
                      label={p.reporting ? 'reporting' : 'not reporting'}
                    />
                  ),
                },
              ]}
            />
          </Section>
          <Section title="Consumer lag">
            <RowsTable
              caption="Consumer lag"
              rows={consumers}
              rowKey={(c) => `${c.scope}/${c.group}/${c.process}`}
              columns={[
                { label: 'Scope', render: (c) => c.scope },
                { label: 'Consumer group', render: (c) => c.group },
                { label: 'Process', render: (c) => c.process },
                { label: 'Events behind', render: (c) => c.lagEvents },
              ]}
            />
          </Section>
          <Section title="Recent 5xx responses of the /v1 API">
            <KeyValues entries={[['In the last hour', h.serverErrors.lastHour]]} />
            <RowsTable
              caption="Last 5xx responses"
              rows={h.serverErrors.last}
              rowKey={(e) => e.requestId}
              empty="No 5xx response."
              columns={[
                { label: 'At', render: (e) => when(e.at) },
                { label: 'Request', render: (e) => `${e.method} ${e.route}` },
                { label: 'Status', render: (e) => e.status },
                { label: 'Request id', render: (e) => e.requestId },
              ]}
            />
          </Section>
          <Section title="Webhook delivery backlog">
            <RowsTable
              caption="Webhook delivery backlog"
              rows={h.webhookBacklog}
              rowKey={(b) => b.environment}
              columns={[
                { label: 'Environment', render: (b) => b.environment },
                { label: 'Deliveries pending', render: (b) => b.pending },
              ]}
            />
          </Section>
        </>
      )}
    </>
  );
}
