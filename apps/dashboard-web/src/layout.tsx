import type { ReactNode } from 'react';
import { ListItemIcon, ListItemText, MenuItem, Typography } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import FactCheckIcon from '@mui/icons-material/FactCheck';
import WebhookIcon from '@mui/icons-material/Webhook';
import StorefrontIcon from '@mui/icons-material/Storefront';
import GroupIcon from '@mui/icons-material/Group';
import HistoryIcon from '@mui/icons-material/History';
import MonitorHeartIcon from '@mui/icons-material/MonitorHeart';
import LogoutIcon from '@mui/icons-material/PowerSettingsNew';
import {
  AppBar,
  Layout,
  Logout,
  Menu,
  TitlePortal,
  UserMenu,
  useGetIdentity,
  useLogout,
  useNotify,
} from 'react-admin';
import { revokeAllSessions } from './authProvider';
import { EnvironmentSwitch, PRODUCTION_COLOR, useEnvironment, useRouteEnvironment } from './environment';
import { useCan } from './permissions';

function SignOutEverywhere() {
  const logout = useLogout();
  const notify = useNotify();
  return (
    <MenuItem
      onClick={async () => {
        try {
          await revokeAllSessions();
        } catch {
          notify('Could not end the other sessions', { type: 'error' });
        }
        await logout();
      }}
    >
      <ListItemIcon>
        <LogoutIcon fontSize="small" />
      </ListItemIcon>
      <ListItemText>Sign out everywhere</ListItemText>
    </MenuItem>
  );
}

function DashboardAppBar() {
  // Coloured by the page's environment; platform-wide pages (staff, audit, distributors) are neither.
  const environment = useRouteEnvironment();
  const production = environment === 'production';
  // The menu button shows the staff member's name: its accessible name says the same (WCAG 2.5.3).
  const { identity } = useGetIdentity();
  return (
    <AppBar
      sx={{ bgcolor: production ? PRODUCTION_COLOR : 'primary.main' }}
      userMenu={
        <UserMenu label={identity?.fullName ? `Profile of ${String(identity.fullName)}` : 'Profile'}>
          <SignOutEverywhere />
          <Logout />
        </UserMenu>
      }
    >
      <TitlePortal component="span" />
      {environment && (
        <Typography
          component="span"
          sx={{ fontWeight: 700, letterSpacing: 1, px: 1, border: 2, borderRadius: 1 }}
        >
          {production ? 'PRODUCTION' : 'SANDBOX'}
        </Typography>
      )}
      <EnvironmentSwitch />
    </AppBar>
  );
}

function DashboardMenu() {
  const environment = useEnvironment();
  const admin = useCan('admin');
  return (
    <Menu>
      <Menu.Item to={`/${environment}/search`} primaryText="Search" leftIcon={<SearchIcon />} />
      <Menu.Item
        to={`/${environment}/transactions`}
        primaryText="Transactions"
        leftIcon={<ReceiptLongIcon />}
      />
      <Menu.Item to={`/${environment}/kyc-reviews`} primaryText="KYC review" leftIcon={<FactCheckIcon />} />
      <Menu.Item
        to={`/${environment}/webhook-subscriptions`}
        primaryText="Webhooks"
        leftIcon={<WebhookIcon />}
      />
      <Menu.Item to="/distributors" primaryText="Distributors" leftIcon={<StorefrontIcon />} />
      {admin && <Menu.Item to="/staff" primaryText="Staff" leftIcon={<GroupIcon />} />}
      <Menu.Item to="/audit" primaryText="Audit log" leftIcon={<HistoryIcon />} />
      <Menu.Item to="/health" primaryText="System health" leftIcon={<MonitorHeartIcon />} />
    </Menu>
  );
}

export function DashboardLayout({ children }: { children: ReactNode }) {
  return (
    <Layout appBar={DashboardAppBar} menu={DashboardMenu}>
      {children}
    </Layout>
  );
}
