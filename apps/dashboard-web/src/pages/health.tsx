import { useQuery } from '@tanstack/react-query';
import { Title } from 'react-admin';
import { api } from '../api';
import { AutoTable, display, JsonDetails, KeyValues, LoadError, Loading, PageHeading, Section } from '../ui';

type Row = Record<string, unknown>;

const titles: Record<string, string> = {
  consumers: 'Consumer lag',
  consumerLag: 'Consumer lag',
  errors: 'Recent 5xx responses',
  recent5xx: 'Recent 5xx responses',
  deliveries: 'Webhook delivery backlog',
  deliveryBacklog: 'Webhook delivery backlog',
};

/** Each part of the health answer as a table (lists) or key/values (objects). */
function Part({ name, value }: { name: string; value: unknown }) {
  const title = titles[name] ?? name;
  if (Array.isArray(value)) {
    return (
      <Section title={title}>
        <AutoTable caption={title} rows={value as Row[]} />
      </Section>
    );
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Row);
    return (
      <Section title={title}>
        <KeyValues
          entries={entries.filter(([, v]) => !Array.isArray(v)).map(([key, v]) => [key, display(v)])}
        />
        {entries
          .filter(([, v]) => Array.isArray(v))
          .map(([key, v]) => (
            <AutoTable key={key} caption={`${title}: ${key}`} rows={v as Row[]} />
          ))}
      </Section>
    );
  }
  return (
    <Section title={title}>
      <KeyValues entries={[[name, display(value)]]} />
    </Section>
  );
}

export function HealthPage() {
  const health = useQuery({
    queryKey: ['operator', '/health'],
    queryFn: () => api<Row>('/health'),
    refetchInterval: 15_000,
  });
  return (
    <>
      <Title title="System health" />
      <PageHeading title="System health" />
      {health.isPending && <Loading />}
      {health.error && <LoadError error={health.error} />}
      {health.data &&
        Object.entries(health.data).map(([name, value]) => <Part key={name} name={name} value={value} />)}
      {health.data && <JsonDetails value={health.data} summary="Whole answer (JSON)" />}
    </>
  );
}
