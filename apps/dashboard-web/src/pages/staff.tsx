import { useState } from 'react';
import { Stack } from '@mui/material';
import { Datagrid, DateField, FunctionField, List, TextField, TopToolbar } from 'react-admin';
import { STAFF_ROLES, type StaffView } from '@cip/backoffice/contract';
import { ActionButton, ShownOnceDialog } from '../actions';
import { display, PageHeading } from '../ui';

function InviteButton() {
  const [link, setLink] = useState<string | null>(null);
  return (
    <>
      <ActionButton
        label="Invite staff"
        permission="admin"
        title="Invite a staff member"
        description="The invitation link is shown once: send it to the person through a channel you trust."
        path="/staff"
        askReason={false}
        fields={[
          { name: 'email', label: 'Email', type: 'email', required: true },
          { name: 'name', label: 'Name', required: true },
          { name: 'role', label: 'Role', options: STAFF_ROLES, initial: 'viewer', required: true },
        ]}
        onDone={(answer) => setLink((answer as { invitation?: { url?: string } }).invitation?.url ?? null)}
      />
      {link && (
        <ShownOnceDialog
          title="Invitation link"
          label="Invitation link"
          secret={link}
          onClose={() => setLink(null)}
        />
      )}
    </>
  );
}

function StaffActions({ staff }: { staff: StaffView }) {
  const base = `/staff/${encodeURIComponent(staff.id)}`;
  return (
    <Stack direction="row" spacing={1}>
      <ActionButton
        label="Change role"
        permission="admin"
        title={`Change the role of ${staff.email}`}
        path={`${base}/role`}
        fields={[{ name: 'role', label: 'Role', options: STAFF_ROLES, initial: staff.role }]}
      />
      {staff.lockedUntil && (
        <ActionButton
          label="Unlock"
          permission="admin"
          title={`Unlock ${staff.email}`}
          path={`${base}/unlock`}
        />
      )}
      {staff.status !== 'disabled' && (
        <ActionButton
          label="Disable"
          permission="admin"
          title={`Disable ${staff.email}`}
          description="Their sessions end and they can no longer sign in."
          path={`${base}/disable`}
          color="error"
        />
      )}
    </Stack>
  );
}

export function StaffList() {
  return (
    <>
      <PageHeading title="Staff" />
      <List
        resource="staff"
        title="Staff"
        exporter={false}
        actions={
          <TopToolbar>
            <InviteButton />
          </TopToolbar>
        }
      >
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <TextField source="email" sortable={false} />
          <TextField source="name" sortable={false} />
          <TextField source="role" sortable={false} />
          <TextField source="status" sortable={false} />
          <FunctionField label="Locked until" render={(staff: StaffView) => display(staff.lockedUntil)} />
          <DateField source="createdAt" label="Since" sortable={false} />
          <FunctionField label="Actions" render={(staff: StaffView) => <StaffActions staff={staff} />} />
        </Datagrid>
      </List>
    </>
  );
}
