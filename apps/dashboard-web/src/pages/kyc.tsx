import { Stack } from '@mui/material';
import { Datagrid, DateField, FunctionField, List, TextField } from 'react-admin';
import { DECLINED_CODES } from '@cip/kyc/contract';
import type { Environment } from '@cip/shared/contracts';
import { ActionButton } from '../actions';
import { PageHeading } from '../ui';
import { UserLink } from './search';

/** Approve, or decline with a code: compliance only (hidden for the other roles). */
export function KycReviewButtons({ environment, kycId }: { environment: Environment; kycId: string }) {
  const path = `/${environment}/kycs/${encodeURIComponent(kycId)}/review`;
  return (
    <Stack direction="row" spacing={1}>
      <ActionButton
        label="Approve"
        permission="compliance"
        title={`Approve KYC ${kycId}`}
        path={path}
        buildBody={() => ({ decision: 'approve' })}
        color="success"
      />
      <ActionButton
        label="Decline"
        permission="compliance"
        title={`Decline KYC ${kycId}`}
        path={path}
        fields={[
          {
            name: 'declinedCode',
            label: 'Declined code',
            options: DECLINED_CODES,
            required: true,
            initial: 'identity',
          },
        ]}
        buildBody={(values) => ({ decision: 'decline', declinedCode: values.declinedCode })}
        color="error"
      />
    </Stack>
  );
}

export function KycQueue({ environment }: { environment: Environment }) {
  return (
    <>
      <PageHeading title="KYC review queue" environment={environment} />
      <List resource={`${environment}/kyc-reviews`} title="KYC review queue" exporter={false} perPage={25}>
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <TextField source="id" label="KYC" sortable={false} />
          <FunctionField
            label="User"
            render={(kyc: { userId: string }) => <UserLink environment={environment} id={kyc.userId} />}
          />
          <TextField source="type" sortable={false} />
          <TextField source="status" sortable={false} />
          <DateField source="updatedAt" label="Submitted" showTime sortable={false} />
          <FunctionField
            label="Review"
            render={(kyc: { id: string }) => <KycReviewButtons environment={environment} kycId={kyc.id} />}
          />
        </Datagrid>
      </List>
    </>
  );
}
