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
          <input type="url" required placeholder="https://example.com/docgen-events" value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Add webhook
        </button>
      </form>
      <ErrorAlert error={create.error} title="The webhook was not added" />
      {create.data ? (
        <SecretField
          label="Signing secret"
          value={create.data.secret}
          note="Verify each delivery's webhook-signature with it. Select it and copy it now: it will not be shown again."
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
