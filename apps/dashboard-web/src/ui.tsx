import { useEffect, useId, type ReactNode } from 'react';
import { useLogoutIfAccessDenied } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import {
  Alert,
  Box,
  CircularProgress,
  Link,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { Environment } from '@cip/shared/contracts';
import { EnvironmentChip } from './environment';
import { errorBody } from './api';

/** The page's one h1, with the environment shown prominently on environment pages. */
export function PageHeading({
  title,
  environment,
  children,
}: {
  title: string;
  environment?: Environment;
  children?: ReactNode;
}) {
  return (
    <Stack
      direction="row"
      spacing={2}
      useFlexGap
      sx={{
        alignItems: 'center',
        flexWrap: 'wrap',
        my: 2,
        p: environment === 'production' ? 1 : 0,
        borderLeft: environment === 'production' ? 6 : 0,
        borderColor: 'warning.main',
      }}
    >
      <Typography variant="h5" component="h1">
        {title}
      </Typography>
      {environment && <EnvironmentChip environment={environment} />}
      {children}
    </Stack>
  );
}

export function Section({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <Paper component="section" aria-labelledby={headingId} sx={{ p: 2, mb: 2 }}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ mb: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2" id={headingId} sx={{ mr: 1 }}>
          {title}
        </Typography>
        {actions}
      </Stack>
      {children}
    </Paper>
  );
}

export function display(value: unknown): ReactNode {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value))
    return value.length
      ? value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')
      : '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function KeyValues({ entries }: { entries: [string, ReactNode][] }) {
  return (
    <Box
      component="dl"
      sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 3, rowGap: 0.5, m: 0 }}
    >
      {entries.map(([label, value]) => (
        <Box key={label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, wordBreak: 'break-all' }}>
            {value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

interface Column<T> {
  label: string;
  render: (row: T) => ReactNode;
}

/** A plain table with a caption (its accessible name) and a line when it is empty. */
export function RowsTable<T>({
  caption,
  rows,
  columns,
  rowKey,
  empty = 'None',
}: {
  caption: string;
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T, index: number) => string;
  empty?: string;
}) {
  if (rows.length === 0) return <Typography variant="body2">{empty}</Typography>;
  return (
    <TableContainer>
      <Table size="small" aria-label={caption}>
        <TableHead>
          <TableRow>
            {columns.map((column) => (
              <TableCell key={column.label} component="th" scope="col">
                {column.label}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row, index) => (
            <TableRow key={rowKey(row, index)}>
              {columns.map((column) => (
                <TableCell key={column.label}>{column.render(row)}</TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** A collapsible JSON body: a native <details>, keyboard usable as it is. */
export function JsonDetails({ value, summary = 'JSON' }: { value: unknown; summary?: string }) {
  return (
    <Box component="details" sx={{ mt: 0.5 }}>
      <Box component="summary" sx={{ cursor: 'pointer', fontSize: 14 }}>
        {summary}
      </Box>
      <Box
        component="pre"
        sx={{ fontSize: 12, bgcolor: 'action.hover', p: 1, overflowX: 'auto', whiteSpace: 'pre-wrap', m: 0 }}
      >
        {JSON.stringify(value, null, 2)}
      </Box>
    </Box>
  );
}

export function Loading() {
  return (
    <Box sx={{ p: 4 }} role="status" aria-label="Loading">
      <CircularProgress />
    </Box>
  );
}

export function LoadError({ error }: { error: unknown }) {
  // A session that ended (401) signs out to the sign-in page, as react-admin's own pages do.
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  useEffect(() => {
    void logoutIfAccessDenied(error);
  }, [error, logoutIfAccessDenied]);
  const body = errorBody(error);
  return (
    <Alert severity="error" role="alert" sx={{ my: 2 }}>
      {body.message} ({body.code})
    </Alert>
  );
}

export function money(amount: unknown, currency: unknown = 'USD'): string {
  if (typeof amount !== 'number') return '—';
  return `${amount.toFixed(2)} ${typeof currency === 'string' ? currency : ''}`.trim();
}

export function when(at: unknown): string {
  if (typeof at !== 'string') return '—';
  return at
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
    .replace(/Z$/, ' UTC');
}

/** A row's way to its page that a keyboard reaches too (a clickable row alone is mouse-only). */
export function ShowLink({ resource, id, children }: { resource: string; id: string; children?: ReactNode }) {
  return (
    <Link component={RouterLink} to={`/${resource}/${encodeURIComponent(id)}/show`}>
      {children ?? id}
    </Link>
  );
}
