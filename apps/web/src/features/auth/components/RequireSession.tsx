import { Navigate, Outlet, useLocation } from 'react-router';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useSession } from '../../../lib/session';

/** Any page without a session leads to /login, which leads back here after signing in. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <p role="status">Loading…</p>;
  if (session.error) return <ErrorAlert error={session.error} />;
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

export function RequireAdmin({ children }: { children: React.ReactNode }) {
  const session = useSession();
  if (session.data?.user.role !== 'admin') {
    return (
      <main>
        <div role="alert" className="alert">
          This page needs the admin role. Ask an admin of your organisation.
        </div>
      </main>
    );
  }
  return <>{children}</>;
}
