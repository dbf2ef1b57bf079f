import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { LoginPage } from '../features/auth/components/LoginPage';
import { RequireAdmin, RequireSession } from '../features/auth/components/RequireSession';
import { TemplatesPage } from '../features/templates/components/TemplatesPage';
import { AppShell } from './AppShell';

// Pages past the first load in chunks of their own, so the first paint needs less script.
const TemplatePage = lazy(() => import('./routes/TemplatePage').then((m) => ({ default: m.TemplatePage })));
const DeveloperPage = lazy(() => import('./routes/DeveloperPage').then((m) => ({ default: m.DeveloperPage })));
const MembersPage = lazy(() => import('../features/members/components/MembersPage').then((m) => ({ default: m.MembersPage })));
const DocumentsPage = lazy(() => import('./routes/DocumentsPage').then((m) => ({ default: m.DocumentsPage })));
const BulkJobsPage = lazy(() => import('./routes/BulkJobsPage').then((m) => ({ default: m.BulkJobsPage })));
const AccountPage = lazy(() => import('../features/account/components/AccountPage').then((m) => ({ default: m.AccountPage })));

const page = (element: ReactNode) => <Suspense fallback={<p role="status">Loading…</p>}>{element}</Suspense>;

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
          { path: 'templates/:id', element: page(<TemplatePage />) },
          { path: 'documents', element: page(<DocumentsPage />) },
          { path: 'bulk-jobs', element: page(<BulkJobsPage />) },
          { path: 'settings/developer', element: <RequireAdmin>{page(<DeveloperPage />)}</RequireAdmin> },
          { path: 'settings/members', element: <RequireAdmin>{page(<MembersPage />)}</RequireAdmin> },
          { path: 'settings/account', element: page(<AccountPage />) },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
]);
