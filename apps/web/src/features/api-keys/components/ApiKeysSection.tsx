import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { SecretField } from '../../../components/SecretField';
import { formatDate, formatTime } from '../../../lib/format';
import { useCreateApiKey } from '../api/create-api-key';
import { useApiKeys, type ApiKey } from '../api/list-api-keys';
import { useRevokeApiKey } from '../api/revoke-api-key';

export function ApiKeysSection() {
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [expiresOn, setExpiresOn] = useState('');
  const [confirming, setConfirming] = useState<ApiKey | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // A date means "valid through that day" (UTC).
    const expires_at = expiresOn ? new Date(`${expiresOn}T23:59:59.999Z`).toISOString() : undefined;
    create.mutate({ name, expires_at }, { onSuccess: () => setName('') });
  };

  return (
    <section aria-labelledby="keys-heading" className="card">
      <h2 id="keys-heading">API keys</h2>
      <p>Programs send a key in the X-API-Key header. A key is shown once, when it is created.</p>
      <form onSubmit={submit} className="row">
        <label>
          Key name
          <input
            type="text"
            required
            maxLength={100}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              if (create.isError) create.reset();
            }}
          />
        </label>
        <label>
          Expires on
          <input type="date" value={expiresOn} onChange={(e) => setExpiresOn(e.target.value)} aria-describedby="expires-hint" />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create API key
        </button>
      </form>
      <p id="expires-hint" className="hint">
        Leave Expires on empty for a key that does not expire.
      </p>
      <ErrorAlert error={create.error} title="The key was not created" />
      {create.data ? (
        <SecretField label="New API key" value={create.data.key} note={`“${create.data.name}”: copy it now; it will not be shown again.`} />
      ) : null}

      <ErrorAlert error={keys.error} />
      <ErrorAlert error={revoke.error} title="The key was not revoked" />
      {keys.data ? (
        <div className="scroll-x" tabIndex={0}>
          <table className="list">
            <caption>API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((key) => (
                <tr key={key.id}>
                  <th scope="row" data-label="Name">
                    {key.name}
                  </th>
                  <td data-label="Prefix">
                    <code>{key.prefix}</code>
                  </td>
                  <td data-label="Created">{formatTime(key.created_at)}</td>
                  <td data-label="Expires">{key.expires_at ? formatDate(key.expires_at) : 'never'}</td>
                  <td data-label="Last used">{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
                  <td data-label="State">
                    {key.revoked_at ? (
                      `revoked ${formatTime(key.revoked_at)}`
                    ) : (
                      <button type="button" className="danger" onClick={() => setConfirming(key)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={`Revoke “${confirming.name}”?`}
          confirmLabel="Revoke"
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            revoke.mutate(confirming.id);
            // A revoked key is worthless: stop offering to copy it.
            if (create.data?.id === confirming.id) create.reset();
            setConfirming(null);
          }}
        >
          <p>Programs using this key get 401 from their very next request. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
