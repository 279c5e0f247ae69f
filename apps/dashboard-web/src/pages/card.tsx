import { useQuery } from '@tanstack/react-query';
import { Alert, Stack } from '@mui/material';
import { Title } from 'react-admin';
import { useParams } from 'react-router-dom';
import type { Environment } from '@cip/shared/contracts';
import { api } from '../api';
import { ActionButton } from '../actions';
import { Timeline } from '../timeline';
import { display, KeyValues, LoadError, Loading, PageHeading, Section, when } from '../ui';
import { TransactionsTable, UserLink } from './search';

type Row = Record<string, unknown>;
interface CardDetail {
  card: Row;
  user: Row | null;
  authorizations: Row[];
}

const OPERATOR_HOLDS = ['compliance_hold', 'fraud_hold'] as const;

export function CardPage({ environment }: { environment: Environment }) {
  const { id = '' } = useParams();
  const base = `/${environment}/cards/${encodeURIComponent(id)}`;
  const detail = useQuery({ queryKey: ['operator', base], queryFn: () => api<CardDetail>(base) });
  const card = detail.data?.card;
  const blocks = (card?.blocks as string[] | undefined) ?? [];
  const holds = blocks.filter((block) => (OPERATOR_HOLDS as readonly string[]).includes(block));

  return (
    <>
      <Title title={`Card ${id}`} />
      <PageHeading title={`Card ${display(card?.maskedPan ?? id)}`} environment={environment} />
      {detail.isPending && <Loading />}
      {detail.error && <LoadError error={detail.error} />}
      {card && (
        <>
          <Section
            title="Card"
            actions={
              <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
                {card.status === 'active' && (
                  <ActionButton
                    label="Freeze"
                    permission="support"
                    title="Freeze the card"
                    path={`${base}/freeze`}
                    color="warning"
                  />
                )}
                {card.status === 'frozen' && (
                  <ActionButton
                    label="Unfreeze"
                    permission="support"
                    title="Unfreeze the card"
                    path={`${base}/unfreeze`}
                  />
                )}
                {blocks.includes('pin_cvv_attempts') && (
                  <ActionButton
                    label="Unblock PIN/CVV2"
                    permission="support"
                    title="Unblock the card after wrong PIN or CVV2 attempts"
                    path={`${base}/unblock`}
                  />
                )}
                <ActionButton
                  label="Place hold"
                  permission="compliance"
                  title="Place an operator hold on the card"
                  description="The card is frozen until the hold is lifted."
                  path={`${base}/holds`}
                  fields={[
                    { name: 'hold', label: 'Hold', options: OPERATOR_HOLDS, initial: 'compliance_hold' },
                  ]}
                  color="warning"
                />
                {holds.map((hold) => (
                  <ActionButton
                    key={hold}
                    label={`Lift ${hold.replace('_', ' ')}`}
                    permission="compliance"
                    title={`Lift the card's ${hold.replace('_', ' ')}`}
                    path={`${base}/holds/${hold}/lift`}
                    color="success"
                  />
                ))}
              </Stack>
            }
          >
            {holds.length > 0 && (
              <Alert severity="warning" sx={{ mb: 1 }}>
                Operator hold: {holds.join(', ')}
              </Alert>
            )}
            <KeyValues
              entries={[
                ['Id', display(card.id)],
                ['Number', display(card.maskedPan)],
                ['Last four', display(card.last4)],
                ['Type', display(card.type)],
                ['Status', display(card.status)],
                ['Blocks', display(blocks)],
                [
                  'Expires',
                  card.expMonth ? `${String(card.expMonth).padStart(2, '0')}/${card.expYear}` : '—',
                ],
                ['User', <UserLink key="user" environment={environment} id={card.userId} />],
                ['Wallet', display(card.walletId)],
                ['Created', when(card.createdAt)],
              ]}
            />
          </Section>
          <Section title="Authorizations">
            <TransactionsTable
              environment={environment}
              rows={detail.data?.authorizations ?? []}
              caption="Authorizations of the card"
            />
          </Section>
          <Timeline path={`${base}/timeline`} />
        </>
      )}
    </>
  );
}
