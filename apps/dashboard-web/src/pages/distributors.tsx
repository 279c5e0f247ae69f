import { useState } from 'react';
import { Stack } from '@mui/material';
import { Datagrid, FunctionField, List, Show, TextField, useRecordContext } from 'react-admin';
import { ActionButton, ShownOnceDialog, type ActionField } from '../actions';
import { ENVIRONMENTS } from '../environment';
import { display, JsonDetails, KeyValues, PageHeading, RowsTable, Section, when } from '../ui';

type Row = Record<string, unknown>;
interface Authorization {
  fees?: { fx: number; atm: number; auth: number };
  fxRates?: Record<string, string>;
  [field: string]: unknown;
}
interface Program {
  allowedCountries?: string[];
  b2b?: boolean;
  prepaid?: boolean;
  kycImportEnabled?: boolean;
  authorization?: Authorization;
  threeDs?: { challengeDeadlineSeconds: number };
  [field: string]: unknown;
}
interface Distributor {
  id: string;
  distributorId?: string;
  name: string;
  program?: Program;
  keys?: Row[];
  [field: string]: unknown;
}

export function DistributorList() {
  return (
    <>
      <PageHeading title="Distributors" />
      <List resource="distributors" title="Distributors" exporter={false}>
        <Datagrid bulkActionButtons={false} rowClick="show">
          <TextField source="name" sortable={false} />
          <TextField source="id" sortable={false} />
          <FunctionField
            label="Countries"
            render={(d: Distributor) => display(d.program?.allowedCountries?.length ?? null)}
          />
          <FunctionField
            label="Active keys"
            render={(d: Distributor) => display(d.keys?.filter((k) => k.status === 'active').length ?? null)}
          />
        </Datagrid>
      </List>
    </>
  );
}

const FEATURES = ['b2b', 'prepaid', 'kycImportEnabled'] as const;
const list = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
const rates = (rec: Record<string, string> = {}) =>
  Object.entries(rec)
    .map(([currency, rate]) => `${currency}=${rate}`)
    .join(', ');

/** The program edit form: the settings of `cli distributors configure`; only what changed is sent. */
function programFields(program: Program): { fields: ActionField[]; build: (v: Record<string, string>) => Row } {
  const fees = program.authorization?.fees ?? { fx: 0, atm: 0, auth: 0 };
  // Other list settings of the program (MCC groups, ...) are edited as comma-separated lists.
  const otherLists = Object.keys(program).filter(
    (key) => key !== 'allowedCountries' && Array.isArray(program[key]),
  );
  const fields: ActionField[] = [
    {
      name: 'allowedCountries',
      label: 'Countries (ISO codes, comma-separated)',
      initial: (program.allowedCountries ?? []).join(', '),
    },
    ...FEATURES.map((feature) => ({
      name: feature,
      label: `Feature: ${feature}`,
      options: ['true', 'false'] as const,
      initial: String(Boolean(program[feature])),
    })),
    ...otherLists.map((key) => ({
      name: key,
      label: `${key} (comma-separated)`,
      initial: (program[key] as string[]).join(', '),
    })),
    { name: 'feeFx', label: 'FX fee (6 implied decimals: 20000 = 2%)', type: 'number', initial: String(fees.fx) },
    { name: 'feeAtm', label: 'ATM fee (USD, 6 implied decimals)', type: 'number', initial: String(fees.atm) },
    { name: 'feeAuth', label: 'Authorization fee (USD, 6 implied decimals)', type: 'number', initial: String(fees.auth) },
    {
      name: 'fxRates',
      label: 'FX rates (USD per unit: EUR=1.08, SEK=0.095)',
      initial: rates(program.authorization?.fxRates),
    },
    {
      name: 'threeDsDeadline',
      label: '3DS challenge deadline (seconds, 60 to 600)',
      type: 'number',
      initial: String(program.threeDs?.challengeDeadlineSeconds ?? 300),
    },
  ];
  const initial = Object.fromEntries(fields.map((field) => [field.name, field.initial ?? '']));
  const build = (values: Record<string, string>): Row => {
    const changed = (name: string) => values[name] !== initial[name];
    const changes: Row = {};
    if (changed('allowedCountries')) changes.allowedCountries = list(values.allowedCountries).map((c) => c.toUpperCase());
    for (const feature of FEATURES) if (changed(feature)) changes[feature] = values[feature] === 'true';
    for (const key of otherLists) if (changed(key)) changes[key] = list(values[key]);
    if (['feeFx', 'feeAtm', 'feeAuth', 'fxRates'].some(changed)) {
      changes.authorization = {
        ...program.authorization,
        fees: { fx: Number(values.feeFx), atm: Number(values.feeAtm), auth: Number(values.feeAuth) },
        fxRates: Object.fromEntries(
          list(values.fxRates).map((pair) => {
            const [currency, rate] = pair.split('=').map((part) => part.trim());
            return [currency.toUpperCase(), rate];
          }),
        ),
      };
    }
    if (changed('threeDsDeadline')) changes.threeDs = { challengeDeadlineSeconds: Number(values.threeDsDeadline) };
    return changes;
  };
  return { fields, build };
}

function DistributorDetail() {
  const distributor = useRecordContext<Distributor>();
  const [secret, setSecret] = useState<string | null>(null);
  if (!distributor) return null;
  const program = distributor.program ?? {};
  const { fields, build } = programFields(program);
  const showKey = (answer: unknown) => {
    const apiKey = (answer as { apiKey?: string } | null)?.apiKey;
    if (apiKey) setSecret(apiKey);
  };
  return (
    <>
      <Section
        title="Program settings"
        actions={
          <ActionButton
            label="Edit program"
            confirmLabel="Save program"
            permission="admin"
            title={`Edit the program of ${distributor.name}`}
            method="PATCH"
            path={`/distributors/${encodeURIComponent(distributor.id)}/program`}
            fields={fields}
            buildBody={build}
          />
        }
      >
        <KeyValues
          entries={[
            ['Name', distributor.name],
            ['Id', distributor.id],
            ['Countries', display(program.allowedCountries)],
            ...FEATURES.map((feature): [string, React.ReactNode] => [`Feature ${feature}`, display(program[feature])]),
            ['Fees (fx, atm, auth)', display(program.authorization?.fees ? Object.values(program.authorization.fees) : null)],
            ['FX rates', rates(program.authorization?.fxRates) || '—'],
            ['3DS challenge deadline', `${program.threeDs?.challengeDeadlineSeconds ?? 300} s`],
          ]}
        />
        <JsonDetails value={program} summary="Program (JSON)" />
      </Section>
      <Section
        title="API keys"
        actions={
          <ActionButton
            label="Create key"
            permission="admin"
            title={`Create an API key for ${distributor.name}`}
            path={`/distributors/${encodeURIComponent(distributor.id)}/keys`}
            fields={[{ name: 'environment', label: 'Environment', options: ENVIRONMENTS, initial: 'sandbox' }]}
            onDone={showKey}
          />
        }
      >
        <RowsTable
          caption="API keys"
          rows={distributor.keys ?? []}
          rowKey={(key) => String(key.keyId ?? key.id)}
          columns={[
            { label: 'Key', render: (key) => display(key.keyId ?? key.id) },
            { label: 'Environment', render: (key) => display(key.environment) },
            { label: 'Ends with', render: (key) => display(key.last4) },
            { label: 'Status', render: (key) => display(key.status) },
            { label: 'Created', render: (key) => when(key.createdAt) },
            {
              label: 'Actions',
              render: (key) =>
                key.status === 'active' ? (
                  <Stack direction="row" spacing={1}>
                    <ActionButton
                      label="Roll"
                      permission="admin"
                      title={`Roll key ${String(key.keyId ?? key.id)}`}
                      description="A replacement key is created and shown once."
                      path={`/keys/${encodeURIComponent(String(key.keyId ?? key.id))}/roll`}
                      onDone={showKey}
                    />
                    <ActionButton
                      label="Revoke"
                      permission="admin"
                      title={`Revoke key ${String(key.keyId ?? key.id)}`}
                      description="Requests with this key are refused from now on."
                      path={`/keys/${encodeURIComponent(String(key.keyId ?? key.id))}/revoke`}
                      color="error"
                    />
                  </Stack>
                ) : null,
            },
          ]}
        />
      </Section>
      {secret && (
        <ShownOnceDialog title="API key created" label="New key" secret={secret} onClose={() => setSecret(null)} />
      )}
    </>
  );
}

export function DistributorShow() {
  return (
    <>
      <PageHeading title="Distributor" />
      <Show resource="distributors" title="Distributor" actions={false}>
        <DistributorDetail />
      </Show>
    </>
  );
}
