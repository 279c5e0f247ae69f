import type { AuthProvider } from 'react-admin';
import type { StaffRole, StaffView } from '@cip/backoffice/contract';
import { api, setCsrfToken } from './api';

interface SessionBody {
  staff: StaffView;
  csrfToken: string;
}

let current: StaffView | null = null;
// react-admin asks for the session, the permissions and the identity at once: one request answers them.
let loading: Promise<StaffView> | null = null;

function loadSession(): Promise<StaffView> {
  if (current) return Promise.resolve(current);
  loading ??= api<SessionBody>('/session')
    .then((session) => {
      current = session.staff;
      setCsrfToken(session.csrfToken);
      return current;
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

function forget(): void {
  current = null;
  setCsrfToken(null);
}

/** The staff role is react-admin's permissions: buttons ask `permits(role, ...)` (see ./permissions). */
export const authProvider: AuthProvider = {
  async login({ email, password, code }: { email: string; password: string; code: string }) {
    forget();
    const session = await api<SessionBody>('/session', { method: 'POST', body: { email, password, code } });
    current = session.staff;
    setCsrfToken(session.csrfToken);
  },
  async logout() {
    if (current) await api('/session', { method: 'DELETE' }).catch(() => undefined);
    forget();
  },
  async checkAuth() {
    try {
      await loadSession();
    } catch {
      // Not signed in (or the session ended): the sign-in page, without an error notification.
      throw { message: false };
    }
  },
  async checkError(error: { status?: number }) {
    if (error?.status === 401) {
      forget();
      throw error;
    }
  },
  // No role without a session (no button then), but no sign-out either: the invitation page is public.
  async getPermissions(): Promise<StaffRole | null> {
    return loadSession().then(
      (staff) => staff.role,
      () => null,
    );
  },
  async getIdentity() {
    const staff = await loadSession();
    return { id: staff.id, fullName: `${staff.name} (${staff.role})`, email: staff.email };
  },
};

/** Sign out everywhere: every session of the signed-in staff member ends. */
export async function revokeAllSessions(): Promise<void> {
  await api('/session/revoke-all', { method: 'POST', body: {} });
  forget();
}
