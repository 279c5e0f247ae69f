import {
  Datagrid,
  DateField,
  FunctionField,
  List,
  NumberField,
  Show,
  TextField,
  TextInput,
  useRecordContext,
} from 'react-admin';
import type { Environment } from '@cip/shared/contracts';
import { display, JsonDetails, KeyValues, PageHeading, Section } from '../ui';
import { CardLink, UserLink } from './search';

const filters = [
  <TextInput key="userId" source="userId" label="User id" alwaysOn />,
  <TextInput key="cardId" source="cardId" label="Card id" alwaysOn />,
  <TextInput key="distributorId" source="distributorId" label="Distributor id" />,
  <TextInput key="kind" source="kind" label="Kind (authorization or wallet)" />,
  <TextInput key="status" source="status" label="Status" alwaysOn />,
  <TextInput key="from" source="from" label="From (ISO date)" />,
  <TextInput key="to" source="to" label="To (ISO date)" />,
];

export function TransactionList({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="Transactions" environment={environment} />
      <List resource={`${environment}/transactions`} title="Transactions" filters={filters} exporter={false}>
        <Datagrid bulkActionButtons={false} rowClick="show">
          <TextField source="id" sortable={false} />
          <FunctionField label="Kind" render={(row: Record<string, unknown>) => display(row.kind ?? row.type)} />
          <TextField source="status" sortable={false} />
          <NumberField source="amount" sortable={false} />
          <TextField source="currency" sortable={false} />
          <FunctionField
            label="User"
            render={(row: { userId?: string }) => <UserLink environment={environment} id={row.userId} />}
          />
          <FunctionField
            label="Card"
            render={(row: { cardId?: string }) => <CardLink environment={environment} id={row.cardId} />}
          />
          <DateField source="createdAt" label="At" showTime sortable={false} />
        </Datagrid>
      </List>
    </>
  );
}

function TransactionDetail({ environment }: { environment: Environment }) {
  const record = useRecordContext<Record<string, unknown> & { id: string }>();
  if (!record) return null;
  const scalars = Object.entries(record).filter(([, value]) => value === null || typeof value !== 'object');
  return (
    <Section title="Transaction">
      <KeyValues
        entries={[
          ...scalars.map(([key, value]): [string, React.ReactNode] => [
            key,
            key === 'userId' ? (
              <UserLink environment={environment} id={value} />
            ) : key === 'cardId' ? (
              <CardLink environment={environment} id={value} />
            ) : (
              display(value)
            ),
          ]),
        ]}
      />
      <JsonDetails value={record} summary="Whole record (JSON)" />
    </Section>
  );
}

export function TransactionShow({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="Transaction" environment={environment} />
      <Show resource={`${environment}/transactions`} title="Transaction" actions={false}>
        <TransactionDetail environment={environment} />
      </Show>
    </>
  );
}
