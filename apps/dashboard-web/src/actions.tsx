import { useState, type FormEvent, type ReactNode } from 'react';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
} from '@mui/material';
import { useNotify, useRefresh } from 'react-admin';
import type { StaffPermission } from '@cip/backoffice/contract';
import { api, errorBody, type ApiErrorBody } from './api';
import { useCan } from './permissions';

export interface ActionField {
  name: string;
  label: string;
  /** A select of these values; a text input otherwise. */
  options?: readonly string[];
  initial?: string;
  required?: boolean;
  helperText?: string;
  type?: 'text' | 'number' | 'email';
}

type Values = Record<string, string>;

export interface ActionButtonProps {
  /** The button's text and the dialog's confirm button (unless `confirmLabel`). */
  label: string;
  confirmLabel?: string;
  /** Who may: the button is not rendered for other roles (the API refuses them with 403 anyway). */
  permission: StaffPermission;
  title: string;
  description?: ReactNode;
  path: string;
  method?: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  fields?: ActionField[];
  /** The body sent, from the fields' values (each field by its name otherwise); `reason` is added. */
  buildBody?: (values: Values) => Record<string, unknown>;
  /** Actions that change money or status ask for a reason (required); a few (an invitation) do not. */
  askReason?: boolean;
  onDone?: (answer: unknown) => void;
  color?: 'primary' | 'error' | 'warning' | 'success' | 'inherit';
}

/**
 * A button that opens a dialog asking for a reason (and any other field) before it calls the API; the API's
 * refusal (`409 card_unfreeze_blocked_error`, `403 forbidden`, ...) is shown in the dialog.
 */
export function ActionButton(props: ActionButtonProps) {
  const allowed = useCan(props.permission);
  const [open, setOpen] = useState(false);
  if (!allowed) return null;
  return (
    <>
      <Button variant="outlined" size="small" color={props.color ?? 'primary'} onClick={() => setOpen(true)}>
        {props.label}
      </Button>
      {open && <ActionDialog {...props} onClose={() => setOpen(false)} />}
    </>
  );
}

function ActionDialog({
  label,
  confirmLabel,
  title,
  description,
  path,
  method = 'POST',
  fields = [],
  buildBody,
  askReason = true,
  onDone,
  onClose,
  color,
}: ActionButtonProps & { onClose: () => void }) {
  const notify = useNotify();
  const refresh = useRefresh();
  const [values, setValues] = useState<Values>(() =>
    Object.fromEntries(fields.map((field) => [field.name, field.initial ?? ''])),
  );
  const [reason, setReason] = useState('');
  const [error, setError] = useState<ApiErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = `action-${label.replace(/\W+/g, '-').toLowerCase()}-title`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { ...(buildBody ? buildBody(values) : values), ...(askReason ? { reason } : {}) };
      const answer = await api(path, { method, body });
      notify(`${title}: done`, { type: 'success' });
      onClose();
      refresh();
      onDone?.(answer);
    } catch (failure) {
      setError(errorBody(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <form onSubmit={submit} noValidate={false}>
        <DialogTitle id={titleId}>{title}</DialogTitle>
        <DialogContent>
          {description && <DialogContentText sx={{ mb: 2 }}>{description}</DialogContentText>}
          <Stack spacing={2} sx={{ pt: 1 }}>
            {fields.map((field) => (
              <TextField
                key={field.name}
                label={field.label}
                required={field.required}
                select={Boolean(field.options)}
                type={field.type ?? 'text'}
                value={values[field.name]}
                helperText={field.helperText}
                onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
              >
                {field.options?.map((option) => (
                  <MenuItem key={option} value={option}>
                    {option}
                  </MenuItem>
                ))}
              </TextField>
            ))}
            {askReason && (
              <TextField
                label="Reason"
                required
                value={reason}
                slotProps={{ htmlInput: { maxLength: 500 } }}
                helperText="Required: a ticket or case reference, nothing personal."
                onChange={(event) => setReason(event.target.value)}
              />
            )}
            {error && (
              <Alert severity="error" role="alert">
                {error.message} ({error.code})
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            type="submit"
            variant="contained"
            color={color ?? 'primary'}
            disabled={busy || (askReason && reason.trim() === '')}
          >
            {confirmLabel ?? label}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/** A secret shown once (a new API key, an invitation link): a copy button and a warning. */
export function ShownOnceDialog({
  title,
  label,
  secret,
  onClose,
}: {
  title: string;
  label: string;
  secret: string;
  onClose: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog open onClose={onClose} aria-labelledby="shown-once-title" fullWidth maxWidth="md">
      <DialogTitle id="shown-once-title">{title}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          This is shown once. Copy it now: it cannot be shown again.
        </Alert>
        <TextField
          label={label}
          value={secret}
          fullWidth
          slotProps={{ input: { readOnly: true } }}
          onFocus={(event) => event.target.select()}
        />
      </DialogContent>
      <DialogActions>
        <Button
          onClick={async () => {
            await navigator.clipboard?.writeText(secret).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="contained" onClick={onClose}>
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}
