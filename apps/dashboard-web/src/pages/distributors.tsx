import { useState, type ReactNode } from 'react';
import { Stack } from '@mui/material';
import { Datagrid, FunctionField, List, Show, TextField, TopToolbar, useRecordContext } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { ActionButton, ShownOnceDialog, type ActionField } from '../actions';
import { ENVIRONMENTS } from '../environment';
import { display, JsonDetails, KeyValues, PageHeading, RowsTable, Section, ShowLink, when } from '../ui';

type Row = Record<string, unknown>;
interface Authorization {
  fees?: { fx: number; atm: number; auth: number };
  fxRates?: Record<string, string>;
  clearingTolerance?: number;
  holdExpiryDays?: number;
  settlementAddress?: string | null;
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

/** A new distributor: its program starts from the platform's defaults, edited on its page after. */
function CreateDistributorButton() {
  const navigate = useNavigate();
  return (
    <ActionButton
      label="Create distributor"
      permission="admin"
      title="Create a distributor"
      description="Its program starts from the defaults (EEA, UK and Switzerland; no B2B, prepaid or KYC import)."
      path="/distributors"
      fields={[{ name: 'name', label: 'Name', required: true }]}
      onDone={(answer) => {
        const id = (answer as { distributorId?: string } | null)?.distributorId;
        if (id) navigate(`/distributors/${encodeURIComponent(id)}/show`);
      }}
    />
  );
}

export function DistributorList() {
  return (
    <>
      <PageHeading title="Distributors" />
      <List
        resource="distributors"
        title="Distributors"
        exporter={false}
        actions={
          <TopToolbar>
            <CreateDistributorButton />
          </TopToolbar>
        }
      >
        <Datagrid bulkActionButtons={false} rowClick="show">
          <FunctionField
            label="Name"
            render={(d: Distributor) => (
              <ShowLink resource="distributors" id={d.id}>
                {d.name}
              </ShowLink>
            )}
          />
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

const FEATURES = [
  ['b2b', 'b2b', 'B2B users'],
  ['prepaid', 'prepaid', 'Prepaid cards'],
  ['kycImport', 'kycImportEnabled', 'KYC import'],
] as const;
const list = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
const rates = (rec: Record<string, string> = {}) =>
  Object.entries(rec)
    .map(([currency, rate]) => `${currency}=${rate}`)
    .join(', ');

/**
 * The program edit form: the settings of `cli distributors configure`, as the API takes them (texts such
 * as `2%`, `2.50USD`, `3m`, parsed by the platform); only what changed is sent, so a refusal names it.
 */
function programFields(program: Program): {
  fields: ActionField[];
  build: (v: Record<string, string>) => Row;
} {
  const authorization = program.authorization ?? {};
  const fees = authorization.fees ?? { fx: 0, atm: 0, auth: 0 };
  const fields: ActionField[] = [
    {
      name: 'countries',
      label: 'Countries (ISO codes, comma-separated)',
      initial: (program.allowedCountries ?? []).join(', '),
    },
    ...FEATURES.map(([name, field, label]) => ({
      name,
      label,
      options: ['true', 'false'] as const,
      initial: String(Boolean(program[field])),
    })),
    { name: 'feeFx', label: 'FX fee (2% or 20000)', initial: String(fees.fx) },
    { name: 'feeAtm', label: 'ATM fee (2.50USD or 2500000)', initial: String(fees.atm) },
    { name: 'feeAuth', label: 'Authorization fee (0.10USD or 100000)', initial: String(fees.auth) },
    {
      name: 'fxRates',
      label: 'FX rates, USD per unit (EUR=1.08, SEK=0.095)',
      initial: rates(authorization.fxRates),
    },
    {
      name: 'clearingTolerance',
      label: 'Clearing tolerance (15% or 150000)',
      initial: String(authorization.clearingTolerance ?? ''),
    },
    {
      name: 'holdExpiryDays',
      label: 'Hold expiry (days, 1 to 30)',
      type: 'number',
      initial: String(authorization.holdExpiryDays ?? ''),
    },
    {
      name: 'settlementAddress',
      label: 'Settlement address (empty: none)',
      initial: String(authorization.settlementAddress ?? ''),
    },
    {
      name: 'threeDsDeadline',
      label: '3DS challenge deadline (90s, 3m: 1 to 10 minutes)',
      initial: `${program.threeDs?.challengeDeadlineSeconds ?? 300}s`,
    },
  ];
  const initial = Object.fromEntries(fields.map((field) => [field.name, field.initial ?? '']));
  const build = (values: Record<string, string>): Row => {
    const changes: Row = {};
    for (const [name, value] of Object.entries(values)) {
      if (value === initial[name]) continue;
      if (name === 'countries') changes.countries = list(value).map((country) => country.toUpperCase());
      else if (FEATURES.some(([feature]) => feature === name)) changes[name] = value === 'true';
      else if (name === 'holdExpiryDays') changes.holdExpiryDays = Number(value);
      else if (name === 'settlementAddress') changes.settlementAddress = value.trim() || null;
      else if (name === 'fxRates') {
        const given = Object.fromEntries(
          list(value).map((pair) => {
            const [currency, rate] = pair.split('=').map((part) => part.trim());
            return [currency.toUpperCase(), rate ?? ''];
          }),
        );
        // A currency taken out of the list loses its rate (null), as `--fx-rate JPY=none` does.
        const removed = Object.keys(authorization.fxRates ?? {}).filter((currency) => !(currency in given));
        changes.fxRates = { ...given, ...Object.fromEntries(removed.map((currency) => [currency, null])) };
      } else changes[name] = value.trim();
    }
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
            ...FEATURES.map(([, field, label]): [string, ReactNode] => [label, display(program[field])]),
            [
              'Fees (fx, atm, auth; 6 implied decimals)',
              display(program.authorization?.fees ? Object.values(program.authorization.fees) : null),
            ],
            ['FX rates', rates(program.authorization?.fxRates) || '—'],
            ['Clearing tolerance', display(program.authorization?.clearingTolerance)],
            ['Hold expiry (days)', display(program.authorization?.holdExpiryDays)],
            ['Settlement address', display(program.authorization?.settlementAddress)],
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
            fields={[
              { name: 'environment', label: 'Environment', options: ENVIRONMENTS, initial: 'sandbox' },
            ]}
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
        <ShownOnceDialog
          title="API key created"
          label="New key"
          secret={secret}
          onClose={() => setSecret(null)}
        />
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
