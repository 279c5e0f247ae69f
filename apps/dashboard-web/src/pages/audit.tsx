import { Chip } from '@mui/material';
import { Datagrid, DateField, FunctionField, List, TextField, TextInput } from 'react-admin';
import type { AuditEntry } from '@cip/backoffice/contract';
import { display, PageHeading } from '../ui';

const filters = [
  <TextInput key="action" source="action" label="Action" alwaysOn />,
  <TextInput key="staffId" source="staffId" label="Staff id" alwaysOn />,
  <TextInput key="userId" source="userId" label="User id" alwaysOn />,
  <TextInput key="targetId" source="targetId" label="Target id" alwaysOn />,
];

export function AuditList() {
  return (
    <>
      <PageHeading title="Audit log" />
      <List resource="audit" title="Audit log" filters={filters} exporter={false}>
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <DateField source="at" label="At" showTime sortable={false} />
          <FunctionField label="Staff" render={(e: AuditEntry) => `${e.staff.email} (${e.staff.role})`} />
          <TextField source="action" sortable={false} />
          <FunctionField label="Environment" render={(e: AuditEntry) => display(e.environment)} />
          <FunctionField label="Target" render={(e: AuditEntry) => `${e.target.type} ${e.target.id}`} />
          <FunctionField label="User" render={(e: AuditEntry) => display(e.userId)} />
          <FunctionField label="Reason" render={(e: AuditEntry) => display(e.reason)} />
          <FunctionField
            label="Outcome"
            render={(e: AuditEntry) => (
              <Chip
                size="small"
                color={e.outcome === 'succeeded' ? 'success' : 'error'}
                label={e.outcome === 'succeeded' ? 'succeeded' : `refused: ${e.errorCode ?? ''}`}
              />
            )}
          />
        </Datagrid>
      </List>
    </>
  );
}
