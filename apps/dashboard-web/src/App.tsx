import { Admin, Authenticated, CustomRoutes, defaultTheme, Resource, type RaThemeOptions } from 'react-admin';
import { Navigate, Route } from 'react-router-dom';
import { authProvider } from './authProvider';
import { dataProvider } from './dataProvider';
import { ENVIRONMENTS, PRODUCTION_COLOR, useEnvironment } from './environment';
import { DashboardLayout } from './layout';
import { AuditList } from './pages/audit';
import { CardPage } from './pages/card';
import { DistributorList, DistributorShow } from './pages/distributors';
import { HealthPage } from './pages/health';
import { InvitationPage } from './pages/invitation';
import { KycQueue } from './pages/kyc';
import { LoginPage } from './pages/login';
import { SearchPage } from './pages/search';
import { StaffList } from './pages/staff';
import { TransactionList, TransactionShow } from './pages/transactions';
import { UserPage } from './pages/user';
import { WebhookSubscriptionList, WebhookSubscriptionShow } from './pages/webhooks';

// System fonts only: the dashboard works offline (no web fonts, no CDN).
const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", "Helvetica Neue", Arial, "Noto Sans", sans-serif';
// Colours chosen for WCAG AA contrast (4.5:1 for text, both as text on white and as white text on them),
// checked by axe-core in the browser test; production's warning orange is the one the environment uses.
const theme: RaThemeOptions = {
  ...defaultTheme,
  typography: { ...defaultTheme.typography, fontFamily: SYSTEM_FONTS },
  palette: {
    ...defaultTheme.palette,
    primary: { main: '#1565c0' },
    secondary: { main: '#6a1b9a' },
    warning: { main: PRODUCTION_COLOR },
    info: { main: '#01579b' },
  },
  components: {
    ...defaultTheme.components,
    // Spinners (react-admin's loading indicator, ours) are ARIA progressbars and need an accessible name:
    // axe-core reports one without it whenever a page is checked while it still loads.
    MuiCircularProgress: { defaultProps: { 'aria-label': 'Loading' } },
    // react-admin writes its "nothing here yet" message in the disabled text colour: below AA contrast.
    RaEmpty: {
      styleOverrides: {
        root: ({ theme: t }: { theme: { palette: { text: { secondary: string } } } }) => ({
          '& .RaEmpty-message': { color: t.palette.text.secondary },
        }),
      },
    },
  },
};

function Home() {
  const environment = useEnvironment();
  return <Navigate to={`/${environment}/search`} replace />;
}

export function App() {
  return (
    <Admin
      title="Backoffice"
      dataProvider={dataProvider}
      authProvider={authProvider}
      loginPage={LoginPage}
      layout={DashboardLayout}
      dashboard={Home}
      theme={theme}
      darkTheme={null}
      requireAuth
      disableTelemetry
    >
      <Resource
        name="distributors"
        list={DistributorList}
        show={DistributorShow}
        options={{ label: 'Distributors' }}
      />
      <Resource name="staff" list={StaffList} options={{ label: 'Staff' }} />
      <Resource name="audit" list={AuditList} options={{ label: 'Audit log' }} />
      {ENVIRONMENTS.flatMap((environment) => [
        <Resource
          key={`${environment}/transactions`}
          name={`${environment}/transactions`}
          list={<TransactionList environment={environment} />}
          show={<TransactionShow environment={environment} />}
          options={{ label: `Transactions (${environment})` }}
        />,
        <Resource
          key={`${environment}/kyc-reviews`}
          name={`${environment}/kyc-reviews`}
          list={<KycQueue environment={environment} />}
          options={{ label: `KYC review (${environment})` }}
        />,
        <Resource
          key={`${environment}/webhook-subscriptions`}
          name={`${environment}/webhook-subscriptions`}
          list={<WebhookSubscriptionList environment={environment} />}
          show={<WebhookSubscriptionShow environment={environment} />}
          options={{ label: `Webhooks (${environment})` }}
        />,
      ])}
      <CustomRoutes>
        {ENVIRONMENTS.flatMap((environment) => [
          <Route
            key={`${environment}-search`}
            path={`/${environment}/search`}
            element={
              <Authenticated>
                <SearchPage environment={environment} />
              </Authenticated>
            }
          />,
          <Route
            key={`${environment}-user`}
            path={`/${environment}/users/:id`}
            element={
              <Authenticated>
                <UserPage environment={environment} />
              </Authenticated>
            }
          />,
          <Route
            key={`${environment}-card`}
            path={`/${environment}/cards/:id`}
            element={
              <Authenticated>
                <CardPage environment={environment} />
              </Authenticated>
            }
          />,
        ])}
        <Route
          path="/health"
          element={
            <Authenticated>
              <HealthPage />
            </Authenticated>
          }
        />
      </CustomRoutes>
      <CustomRoutes noLayout>
        <Route path="/invitations/:token" element={<InvitationPage />} />
      </CustomRoutes>
    </Admin>
  );
}
