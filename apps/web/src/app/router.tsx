import { createBrowserRouter, Navigate } from 'react-router';
import { AccountPage } from '../features/account/components/AccountPage';
import { LoginPage } from '../features/auth/components/LoginPage';
import { RequireAdmin, RequireSession } from '../features/auth/components/RequireSession';
import { MembersPage } from '../features/members/components/MembersPage';
import { TemplatePage } from '../features/templates/components/TemplatePage';
import { TemplatesPage } from '../features/templates/components/TemplatesPage';
import { DeveloperPage } from '../features/webhooks/components/DeveloperPage';
import { AppShell } from './AppShell';

function NotFound() {
  return (
    <main>
      <h1>Page not found</h1>
      <p>
        <a href="/templates">Go to the templates</a>
      </p>
    </main>
  );
}

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  {
    element: <RequireSession />,
    children: [
      {
        element: <AppShell />,
        children: [
          { index: true, element: <Navigate to="/templates" replace /> },
          { path: 'templates', element: <TemplatesPage /> },
          { path: 'templates/:id', element: <TemplatePage /> },
          { path: 'settings/developer', element: <RequireAdmin><DeveloperPage /></RequireAdmin> },
          { path: 'settings/members', element: <RequireAdmin><MembersPage /></RequireAdmin> },
          { path: 'settings/account', element: <AccountPage /> },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
]);
