import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { SecretField } from '../../../components/SecretField';
import { formatTime } from '../../../lib/format';
import { useCreateWebhook } from '../api/create-webhook';
import { useDeleteWebhook } from '../api/delete-webhook';
import { useDeliveries } from '../api/list-deliveries';
import { useWebhooks, type WebhookEndpoint } from '../api/list-webhooks';
import { useTestWebhook } from '../api/test-webhook';

function Deliveries({ endpointId }: { endpointId: string }) {
  const deliveries = useDeliveries(endpointId, true);
  return (
    <div className="scroll-x" tabIndex={0} id={`deliveries-${endpointId}`}>
      <ErrorAlert error={deliveries.error} />
      {deliveries.data?.items.length === 0 ? <p>No deliveries yet.</p> : null}
      {deliveries.data?.items.length ? (
        <table>
          <caption>Deliveries</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Attempt</th>
              <th scope="col">Status</th>
              <th scope="col">Response status</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.items.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.event}</td>
                <td>{delivery.attempt}</td>
                <td>
                  {delivery.status}
                  {delivery.error ? ` (${delivery.error})` : ''}
                </td>
                <td>{delivery.response_status ?? '—'}</td>
                <td>{formatTime(delivery.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function Endpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const test = useTestWebhook(endpoint.id);
  const remove = useDeleteWebhook();
  const [showDeliveries, setShowDeliveries] = useState(false);
  return (
    <li className="card endpoint">
      <p>
        <code className="break">{endpoint.url}</code>
        <span className="hint"> · {endpoint.events.join(', ')}</span>
      </p>
      <div className="row">
        <button type="button" onClick={() => test.mutate(undefined, { onSuccess: () => setShowDeliveries(true) })} disabled={test.isPending}>
          Test webhook
        </button>
        <button type="button" className="secondary" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          Deliveries
        </button>
        <button type="button" className="danger" onClick={() => remove.mutate(endpoint.id)} disabled={remove.isPending}>
          Delete
        </button>
      </div>
      {test.isSuccess ? <p aria-live="polite">A webhook.test event is on its way.</p> : null}
      <ErrorAlert error={test.error} title="The test was not sent" />
      <ErrorAlert error={remove.error} title="The endpoint was not deleted" />
      {showDeliveries ? <Deliveries endpointId={endpoint.id} /> : null}
    </li>
  );
}

export function WebhooksSection() {
  const webhooks = useWebhooks();
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ url }, { onSuccess: () => setUrl('') });
  };
  return (
    <section aria-labelledby="webhooks-heading" className="card">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p>docgen POSTs signed events (document.ready, document.failed, bulk.completed) to each HTTPS endpoint.</p>
      <form onSubmit={submit} className="row">
        <label className="grow">
          Endpoint URL
          <input
            type="url"
            required
            placeholder="https://example.com/docgen-events"
            value={url}
            aria-describedby="webhook-url-hint"
            onChange={(e) => {
              setUrl(e.target.value);
              // The refusal was about the old URL: editing it is the fix being tried.
              if (create.isError) create.reset();
            }}
          />
        </label>
        <button type="submit" disabled={create.isPending}>
          Add webhook
        </button>
      </form>
      <div id="webhook-url-hint" className="hint">
        <p>
          The URL must be <code>https://</code> and publicly reachable; loopback and private addresses are refused, at registration and at every delivery.
        </p>
        <details className="local-testing">
          <summary>Testing webhooks on your own machine</summary>
          <ul>
            <li>
              Start the gateway and the webhook dispatcher with <code>OUTBOUND_ALLOW_PRIVATE=true</code>: it lets webhooks (and image fetches) reach localhost
              and private addresses. For local testing only; each service logs a warning when it is set.
            </li>
            <li>
              <code>http://</code> stays refused even then: run your receiver with HTTPS on localhost and give the services its certificate’s CA with{' '}
              <code>NODE_EXTRA_CA_CERTS=/path/to/ca.pem</code> (e.g. made with <code>mkcert</code>), or expose it through an HTTPS tunnel.
            </li>
            <li>
              <code>examples/webhook-receiver.mjs</code> in the docgen repository is such a receiver (give it <code>TLS_CERT_FILE</code> and{' '}
              <code>TLS_KEY_FILE</code>); it verifies each signature.
            </li>
          </ul>
        </details>
      </div>
      <ErrorAlert error={create.error} title="The webhook was not added" />
      {create.data ? (
        <SecretField
          label="Signing secret"
          value={create.data.secret}
          note="Verify each delivery's webhook-signature with it. Copy it now: it will not be shown again."
        />
      ) : null}
      <ErrorAlert error={webhooks.error} />
      {webhooks.data?.items.length === 0 ? <p>No endpoints yet.</p> : null}
      <ul className="plain">
        {webhooks.data?.items.map((endpoint) => (
          <Endpoint key={endpoint.id} endpoint={endpoint} />
        ))}
      </ul>
    </section>
  );
}
