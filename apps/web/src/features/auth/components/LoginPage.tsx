import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useSession } from '../../../lib/session';
import { useSignIn } from '../api/sign-in';

/**
 * Only a same-site path may be the page to go back to. Browsers read `\` as `/` and drop tabs
 * and newlines in a URL, so `/\evil.example` would be another site (the router refuses to go
 * there, and signing in would seem to hang): such a `next` is not taken.
 */
export function safeNext(next: string | null): string {
  const samePath = next && next.startsWith('/') && !next.startsWith('//') && !Array.from(next).some(readAsAnotherSite) && !next.startsWith('/login');
  return samePath ? next : '/templates';
}

const readAsAnotherSite = (character: string) => character === '\\' || character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f;

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const session = useSession();
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  useEffect(() => {
    document.title = 'Sign in · docgen';
  }, []);

  if (session.data) return <Navigate to={next} replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password }, { onSuccess: () => navigate(next, { replace: true }) });
  };

  return (
    <main className="login">
      <h1>Sign in to docgen</h1>
      <form onSubmit={submit} className="stack">
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={signIn.isPending}>
          Sign in
        </button>
        <ErrorAlert error={signIn.error} />
      </form>
      {/* Every page links to the API reference (API.md §14), this one too: a developer may read it before having an account. */}
      <nav aria-label="Main" className="login-links">
        <a href="/docs">API reference</a>
      </nav>
    </main>
  );
}
