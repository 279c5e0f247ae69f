import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

// react-admin routes in the URL's hash (`/#/sandbox/search`), so the server only ever serves index.html at
// `/`. A link written as a path (`/invitations/<token>`, served index.html by the operator app's fallback)
// is moved into the hash.
if (window.location.pathname !== '/' && window.location.pathname !== '/index.html' && !window.location.hash) {
  window.location.replace(`/#${window.location.pathname}${window.location.search}`);
} else {
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
