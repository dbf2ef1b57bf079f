import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { usePageTitle } from '../../../components/usePageTitle';
import { useSession } from '../../../lib/session';
import { useChangePassword } from '../api/change-password';

export function AccountPage() {
  usePageTitle('Account');
  const session = useSession();
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
        },
      },
    );
  };

  return (
    <main>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{session.data?.user.email}</strong> ({session.data?.user.role}) in {session.data?.organization.name}.
      </p>
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <form onSubmit={submit} className="stack narrow">
          <label>
            Current password
            <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
          </label>
          <label>
            New password
            <input
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              aria-describedby="new-password-hint"
              value={next}
              onChange={(e) => setNext(e.target.value)}
            />
          </label>
          <p id="new-password-hint" className="hint">
            At least 12 characters. Your other sessions end when it changes.
          </p>
          <button type="submit" disabled={change.isPending}>
            Change password
          </button>
          {change.isSuccess ? <p role="status">Password changed. Your other sessions have ended.</p> : null}
          <ErrorAlert error={change.error} />
        </form>
      </section>
      <p className="hint">Use Sign out at the top of any page to end this session.</p>
    </main>
  );
}
