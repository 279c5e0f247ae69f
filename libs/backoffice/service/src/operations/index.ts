import type { Provider } from '@nestjs/common';

/** What the environment pages read and do, through the other contexts' contracts only. */
export const OPERATIONS_PROVIDERS: Provider[] = [];
