import { useState, type FormEvent } from 'react';
import { Alert, Box, Button, Paper, Stack, TextField, Typography } from '@mui/material';
import { useLogin } from 'react-admin';
import { errorBody } from '../api';

/** Why a sign-in failed, as a person reads it (the API gives one message for wrong credentials). */
function signInError(failure: unknown): string {
  const error = errorBody(failure);
  if (error.code === 'account_locked') {
    const minutes = error.retryAfterSeconds ? Math.ceil(error.retryAfterSeconds / 60) : null;
    return minutes
      ? `Account locked after repeated failures: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`
      : `Account locked: ${error.message}`;
  }
  return error.message;
}

export function LoginPage() {
  const login = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login({ email, password, code });
    } catch (failure) {
      setError(signInError(failure));
      setCode('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', bgcolor: 'grey.100' }}
    >
      <Paper sx={{ p: 4, width: 380 }}>
        <form onSubmit={submit}>
          <Stack spacing={2}>
            <Typography variant="h5" component="h1">
              Sign in to the backoffice
            </Typography>
            <TextField
              label="Email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
            <TextField
              label="Password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <TextField
              label="Authenticator code"
              autoComplete="one-time-code"
              required
              value={code}
              slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]{6}', maxLength: 6 } }}
              helperText="The 6-digit code of your authenticator app"
              onChange={(e) => setCode(e.target.value)}
            />
            {error && (
              <Alert severity="error" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" variant="contained" disabled={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Box>
  );
}
