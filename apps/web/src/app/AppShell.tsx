import { NavLink, Outlet, useNavigate } from 'react-router';
import { useSession } from '../lib/session';
import { useSignOut } from '../features/auth/api/sign-out';

/** The header on every signed-in page: where to go, who is signed in, Sign out. */
export function AppShell() {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const isAdmin = session.data?.user.role === 'admin';
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">docgen</span>
        <nav aria-label="Main">
          <NavLink to="/templates">Templates</NavLink>
          {isAdmin ? <NavLink to="/settings/developer">Developer</NavLink> : null}
          {isAdmin ? <NavLink to="/settings/members">Members</NavLink> : null}
          <NavLink to="/settings/account">Account</NavLink>
        </nav>
        <span className="who">{session.data?.user.email}</span>
        <button type="button" className="secondary" onClick={() => signOut.mutate(undefined, { onSettled: () => navigate('/login', { replace: true }) })}>
          Sign out
        </button>
      </header>
      <div id="content" tabIndex={-1}>
        <Outlet />
      </div>
    </>
  );
}
