import type { ReactNode } from 'react';
import {
  Datagrid,
  DateField,
  FunctionField,
  List,
  SelectInput,
  Show,
  TextInput,
  useRecordContext,
} from 'react-admin';
import { TRANSACTION_KINDS } from '@cip/backoffice/contract';
import type { Environment } from '@cip/shared/contracts';
import { display, JsonDetails, KeyValues, money, PageHeading, Section, ShowLink } from '../ui';
import { CardLink, inner, kindOf, UserLink } from './search';

type Row = Record<string, unknown>;

const filters = [
  <TextInput key="userId" source="userId" label="User id" alwaysOn />,
  <TextInput key="cardId" source="cardId" label="Card id" alwaysOn />,
  <SelectInput
    key="kind"
    source="kind"
    label="Kind"
    choices={TRANSACTION_KINDS.map((kind) => ({ id: kind, name: kind }))}
    alwaysOn
  />,
  <TextInput key="status" source="status" label="Status" alwaysOn />,
  <TextInput key="distributorId" source="distributorId" label="Distributor id" />,
  <TextInput key="from" source="from" label="From (ISO 8601)" />,
  <TextInput key="to" source="to" label="To (ISO 8601)" />,
];

export function TransactionList({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="Transactions" environment={environment} />
      <List resource={`${environment}/transactions`} title="Transactions" filters={filters} exporter={false}>
        <Datagrid bulkActionButtons={false} rowClick="show">
          <FunctionField
            label="Id"
            render={(row: { id: string }) => (
              <ShowLink resource={`${environment}/transactions`} id={row.id} />
            )}
          />
          <FunctionField label="Kind" render={(row: Row) => kindOf(row)} />
          <FunctionField label="Status" render={(row: Row) => display(inner(row).status)} />
          <FunctionField
            label="Amount"
            render={(row: Row) => money(inner(row).amount, inner(row).currency)}
          />
          <FunctionField label="Merchant" render={(row: Row) => display(inner(row).merchantName)} />
          <FunctionField
            label="User"
            render={(row: Row) => <UserLink environment={environment} id={inner(row).userId} />}
          />
          <FunctionField
            label="Card"
            render={(row: Row) => <CardLink environment={environment} id={inner(row).cardId} />}
          />
          <DateField source="createdAt" label="At" showTime sortable={false} />
        </Datagrid>
      </List>
    </>
  );
}

function TransactionDetail({ environment }: { environment: Environment }) {
  const record = useRecordContext<Row & { id: string }>();
  if (!record) return null;
  const fields = inner(record);
  const scalars = Object.entries(fields).filter(([, value]) => value === null || typeof value !== 'object');
  return (
    <Section title={`${kindOf(record)} ${record.id}`}>
      <KeyValues
        entries={scalars.map(([key, value]): [string, ReactNode] => [
          key,
          key === 'userId' ? (
            <UserLink environment={environment} id={value} />
          ) : key === 'cardId' ? (
            <CardLink environment={environment} id={value} />
          ) : (
            display(value)
          ),
        ])}
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
