import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Box, Button, Paper, Stack, TextField, Typography } from '@mui/material';
import { Link, useParams } from 'react-router-dom';
import type { StaffRole } from '@cip/backoffice/contract';
import { api, errorBody } from '../api';
import { KeyValues, LoadError, Loading } from '../ui';

interface Invitation {
  email: string;
  name: string;
  role: StaffRole;
  totp: { secret: string; uri: string };
  expiresAt: string;
}

/** An invitation link: the TOTP secret (shown here once), then a password and the first code. */
export function InvitationPage() {
  const { token = '' } = useParams();
  const path = `/invitations/${encodeURIComponent(token)}`;
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api<Invitation>(path),
    retry: false,
  });
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [accepted, setAccepted] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (password !== confirm) {
      setError('The two passwords differ.');
      return;
    }
    try {
      await api(`${path}/accept`, { method: 'POST', body: { password, code } });
      setAccepted(true);
    } catch (failure) {
      setError(errorBody(failure).message);
    }
  };

  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', bgcolor: 'grey.100' }}
    >
      <Paper sx={{ p: 4, width: 560, maxWidth: '100%' }}>
        <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
          Accept your invitation
        </Typography>
        {invitation.isPending && <Loading />}
        {invitation.error && <LoadError error={invitation.error} />}
        {accepted ? (
          <Stack spacing={2}>
            <Alert severity="success">Your account is ready.</Alert>
            <Button component={Link} to="/login" variant="contained">
              Go to sign-in
            </Button>
          </Stack>
        ) : (
          invitation.data && (
            <form onSubmit={submit}>
              <Stack spacing={2}>
                <KeyValues
                  entries={[
                    ['Name', invitation.data.name],
                    ['Email', invitation.data.email],
                    ['Role', invitation.data.role],
                    ['Expires', invitation.data.expiresAt],
                  ]}
                />
                <Typography variant="h6" component="h2">
                  1. Add the account to your authenticator app
                </Typography>
                <Alert severity="warning">This secret is shown on this page only: add it now.</Alert>
                <TextField
                  label="TOTP secret"
                  value={invitation.data.totp.secret}
                  slotProps={{ input: { readOnly: true } }}
                />
                <TextField
                  label="otpauth URI"
                  value={invitation.data.totp.uri}
                  slotProps={{ input: { readOnly: true } }}
                />
                <Typography variant="h6" component="h2">
                  2. Choose a password and enter the first code
                </Typography>
                <TextField
                  label="Password"
                  type="password"
                  autoComplete="new-password"
                  required
                  helperText="At least 12 characters"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
                <TextField
                  label="Repeat the password"
                  type="password"
                  autoComplete="new-password"
                  required
                  value={confirm}
                  onChange={(e) => setConfirm(e.target.value)}
                />
                <TextField
                  label="Authenticator code"
                  autoComplete="one-time-code"
                  required
                  value={code}
                  slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
                  onChange={(e) => setCode(e.target.value)}
                />
                {error && (
                  <Alert severity="error" role="alert">
                    {error}
                  </Alert>
                )}
                <Button type="submit" variant="contained">
                  Accept the invitation
                </Button>
              </Stack>
            </form>
          )
        )}
      </Paper>
    </Box>
  );
}
