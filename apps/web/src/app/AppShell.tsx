import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../lib/session';
import { useSignOut } from '../features/auth/api/sign-out';
import { ErrorAlert } from '../components/ErrorAlert';

/**
 * The header on every signed-in page: where to go, who is signed in, Sign out. On a narrow
 * screen the links fold behind a button Menu (API.md §14) instead of stacking into a tall header.
 */
export function AppShell() {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();
  const isAdmin = session.data?.user.role === 'admin';
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  // A link followed from the open menu closes it.
  useEffect(() => setOpen(false), [location.pathname]);

  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header
        className={`top${open ? ' open' : ''}`}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && open) {
            setOpen(false);
            menuButton.current?.focus();
          }
        }}
      >
        <span className="brand">docgen</span>
        <button ref={menuButton} type="button" className="menu-button" aria-expanded={open} aria-controls="main-navigation" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <div className="top-links" id="main-navigation">
          <nav aria-label="Main">
            <NavLink to="/templates">Templates</NavLink>
            <NavLink to="/documents">Documents</NavLink>
            <NavLink to="/bulk-jobs">Bulk jobs</NavLink>
            {isAdmin ? <NavLink to="/settings/developer">Developer</NavLink> : null}
            {isAdmin ? <NavLink to="/settings/members">Members</NavLink> : null}
            <NavLink to="/settings/account">Account</NavLink>
            {/* The gateway's own page (OpenAPI), not a route of this app. */}
            <a href="/docs">API reference</a>
          </nav>
          <span className="who">{session.data?.user.email}</span>
        </div>
        <button
          type="button"
          className="secondary sign-out"
          onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate('/login', { replace: true }) })}
        >
          Sign out
        </button>
      </header>
      {/* A sign-out that did not reach the server leaves the session alive: say so, never pretend. */}
      <div className="shell-alert">
        <ErrorAlert error={signOut.error} title="Could not sign out" />
      </div>
      <div id="content" tabIndex={-1}>
        <Outlet />
      </div>
    </>
  );
}
