import { Chip, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useLocation, useNavigate } from 'react-router-dom';
import type { Environment } from '@cip/shared/contracts';

export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];
const STORAGE_KEY = 'cip.dashboard.environment';

function remembered(): Environment {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  return stored === 'production' ? 'production' : 'sandbox';
}

/** The environment in the page's route (its first segment); null on platform-wide pages (staff, audit, ...). */
export function useRouteEnvironment(): Environment | null {
  const { pathname } = useLocation();
  const first = pathname.split('/')[1];
  return ENVIRONMENTS.includes(first as Environment) ? (first as Environment) : null;
}

/** The environment of the page, else the one last chosen (where the menu's environment links go). */
export function useEnvironment(): Environment {
  return useRouteEnvironment() ?? remembered();
}

/**
 * Production's warning colour: a dark orange that keeps white text at a contrast of 5.9:1 (MUI's warning
 * oranges do not reach the 4.5:1 of WCAG AA).
 */
export const PRODUCTION_COLOR = '#b23c00';

/** The app bar's explicit switch: choosing an environment opens its search page (never mixing the two). */
export function EnvironmentSwitch() {
  const environment = useEnvironment();
  const navigate = useNavigate();
  return (
    <ToggleButtonGroup
      exclusive
      size="small"
      value={environment}
      aria-label="Environment"
      sx={{ bgcolor: 'background.paper', mx: 2 }}
      onChange={(_event, value: Environment | null) => {
        if (!value || value === environment) return;
        window.localStorage.setItem(STORAGE_KEY, value);
        navigate(`/${value}/search`);
      }}
    >
      <ToggleButton value="sandbox">Sandbox</ToggleButton>
      <ToggleButton value="production">Production</ToggleButton>
    </ToggleButtonGroup>
  );
}

export function EnvironmentChip({ environment }: { environment: Environment }) {
  return environment === 'production' ? (
    <Chip label="PRODUCTION" sx={{ fontWeight: 700, bgcolor: PRODUCTION_COLOR, color: 'common.white' }} />
  ) : (
    <Chip label="Sandbox" color="primary" />
  );
}
