import { useQuery } from '@tanstack/react-query';
import { Alert, Stack } from '@mui/material';
import { Title } from 'react-admin';
import { useParams } from 'react-router-dom';
import { type OperatorUserStatus, userStatusPermission } from '@cip/backoffice/contract';
import { RFI_SUBTYPES } from '@cip/kyc/contract';
import type { Environment } from '@cip/shared/contracts';
import { api } from '../api';
import { ActionButton } from '../actions';
import { Timeline } from '../timeline';
import { display, KeyValues, LoadError, Loading, money, PageHeading, RowsTable, Section, when } from '../ui';
import { CardsTable, TransactionsTable } from './search';
import { KycReviewButtons } from './kyc';

type Row = Record<string, unknown>;
interface UserDetail {
  user: Row;
  distributor: { id: string; name: string } | null;
  kycs: Row[];
  wallet: Row | null;
  holds: Row[];
  cards: Row[];
  authorizations: Row[];
  transactions: Row[];
}

export function UserPage({ environment }: { environment: Environment }) {
  const { id = '' } = useParams();
  const base = `/${environment}/users/${encodeURIComponent(id)}`;
  const detail = useQuery({ queryKey: ['operator', base], queryFn: () => api<UserDetail>(base) });
  const d = detail.data;
  const user = d?.user ?? {};
  const wallet = d?.wallet ?? null;
  const hold = wallet?.complianceHold as { reason?: string; since?: string } | null | undefined;
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ') || String(user.email ?? id);

  return (
    <>
      <Title title={`User ${id}`} />
      <PageHeading title={`User ${name}`} environment={environment} />
      {detail.isPending && <Loading />}
      {detail.error && <LoadError error={detail.error} />}
      {d && (
        <>
          <Section
            title="User"
            actions={
              <Stack direction="row" spacing={1}>
                <UserStatusButtons base={base} status={String(user.status ?? '')} />
                <ActionButton
                  label="Request information (RFI)"
                  permission="compliance"
                  title="Send a request for information"
                  path={`${base}/rfis`}
                  fields={[
                    {
                      name: 'rfiSubtype',
                      label: 'RFI subtype',
                      options: RFI_SUBTYPES,
                      initial: 'additional_id',
                    },
                  ]}
                />
              </Stack>
            }
          >
            <KeyValues
              entries={[
                ['Id', display(user.id)],
                ['Status', display(user.status)],
                ['Email', display(user.email)],
                ['Phone', display((user.phone as { number?: string } | null)?.number ?? user.phone)],
                ['Country of residence', display(user.countryOfResidence)],
                ['Distributor', d.distributor ? `${d.distributor.name} (${d.distributor.id})` : '—'],
                ['Created', when(user.createdAt)],
              ]}
            />
          </Section>
          <Section title="KYCs">
            <RowsTable
              caption="KYCs"
              rows={d.kycs ?? []}
              rowKey={(kyc) => String(kyc.id)}
              columns={[
                { label: 'Id', render: (kyc) => display(kyc.id) },
                { label: 'Type', render: (kyc) => display(kyc.type) },
                { label: 'Status', render: (kyc) => display(kyc.status) },
                { label: 'Declined code', render: (kyc) => display(kyc.declinedCode) },
                { label: 'Updated', render: (kyc) => when(kyc.updatedAt) },
                {
                  label: 'Review',
                  render: (kyc) =>
                    kyc.status === 'submitted' ? (
                      <KycReviewButtons environment={environment} kycId={String(kyc.id)} />
                    ) : null,
                },
              ]}
            />
          </Section>
          <Section
            title="Wallet"
            actions={
              wallet &&
              (hold ? (
                <ActionButton
                  label="Release compliance hold"
                  permission="compliance"
                  title="Release the wallet's compliance hold"
                  path={`/${environment}/wallets/${encodeURIComponent(String(wallet.id))}/compliance-hold/release`}
                  color="success"
                />
              ) : (
                <ActionButton
                  label="Place compliance hold"
                  permission="compliance"
                  title="Place a compliance hold on the wallet"
                  description="Spending and withdrawals stop until the hold is released."
                  path={`/${environment}/wallets/${encodeURIComponent(String(wallet.id))}/compliance-hold`}
                  color="warning"
                />
              ))
            }
          >
            {wallet ? (
              <Stack spacing={1}>
                {hold && (
                  <Alert severity="warning">
                    Compliance hold since {when(hold.since)}: {display(hold.reason)}
                  </Alert>
                )}
                <KeyValues
                  entries={[
                    ['Wallet', display(wallet.id)],
                    ['Balance', money(wallet.balance, wallet.currency ?? 'USDC')],
                    ['Held', money(wallet.held ?? wallet.pendingHolds, wallet.currency ?? 'USDC')],
                    [
                      'Available',
                      money(wallet.available ?? wallet.availableBalance, wallet.currency ?? 'USDC'),
                    ],
                    ['Compliance hold', hold ? 'yes' : 'no'],
                  ]}
                />
              </Stack>
            ) : (
              'No wallet yet.'
            )}
          </Section>
          <Section title="Open holds">
            <RowsTable
              caption="Open authorization holds"
              rows={d.holds ?? []}
              rowKey={(row, index) => String(row.id ?? index)}
              columns={[
                { label: 'Authorization', render: (row) => display(row.authorizationId ?? row.id) },
                { label: 'Amount', render: (row) => money(row.amount, row.currency) },
                { label: 'Since', render: (row) => when(row.createdAt ?? row.at) },
                { label: 'Expires', render: (row) => when(row.expiresAt) },
              ]}
            />
          </Section>
          <Section title="Cards">
            <CardsTable environment={environment} cards={d.cards ?? []} caption="Cards of the user" />
          </Section>
          <Section title="Authorizations">
            <TransactionsTable
              environment={environment}
              rows={d.authorizations ?? []}
              caption="Authorizations"
            />
          </Section>
          <Section title="Wallet transactions">
            <TransactionsTable
              environment={environment}
              rows={d.transactions ?? []}
              caption="Wallet transactions"
            />
          </Section>
          <Timeline path={`${base}/timeline`} />
        </>
      )}
    </>
  );
}

/** The status changes staff may make from each status (the user lifecycle's, minus the platform's own). */
const STATUS_ACTIONS: {
  to: OperatorUserStatus;
  from: readonly string[];
  label: string;
  title: string;
  description?: string;
  color: 'primary' | 'warning' | 'error';
}[] = [
  {
    to: 'frozen',
    from: ['active', 'unverified'],
    label: 'Freeze',
    title: 'Freeze the user',
    color: 'warning',
  },
  {
    to: 'active',
    from: ['frozen'],
    label: 'Unfreeze',
    title: 'Unfreeze the user (active)',
    color: 'primary',
  },
  {
    to: 'active',
    from: ['disabled'],
    label: 'Reactivate',
    title: 'Reactivate the user (active)',
    color: 'primary',
  },
  {
    to: 'disabled',
    from: ['active', 'unverified', 'frozen'],
    label: 'Disable',
    title: 'Disable the user',
    color: 'warning',
  },
  {
    to: 'revoked',
    from: ['active', 'unverified', 'frozen', 'disabled'],
    label: 'Revoke',
    title: 'Revoke the user',
    description: 'Revoking is final: the user can never be active again.',
    color: 'error',
  },
];

/** The buttons the user's status and the staff member's role allow (the API checks both again). */
function UserStatusButtons({ base, status }: { base: string; status: string }) {
  return (
    <>
      {STATUS_ACTIONS.filter((action) => action.from.includes(status)).map((action) => (
        <ActionButton
          key={action.label}
          label={action.label}
          confirmLabel={action.to === 'revoked' ? 'Revoke for good' : undefined}
          permission={userStatusPermission(status, action.to)}
          title={action.title}
          description={action.description}
          path={`${base}/status`}
          buildBody={() => ({ status: action.to })}
          color={action.color}
        />
      ))}
    </>
  );
}
