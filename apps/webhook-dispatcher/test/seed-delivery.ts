import { randomUUID } from 'node:crypto';
import type { Database } from '@docgen/db';
import { seedOrganization } from '@docgen/testing';

/** An organisation with one endpoint subscribed to document.ready, and one such event, published: a delivery to make. */
export async function seedDelivery(db: Database) {
  const { organizationId } = await seedOrganization(db);
  const endpoint = await db.webhookEndpoint.create({
    data: { organizationId, url: 'https://example.test/hook', events: ['document.ready'], secret: 'whsec_x' },
  });
  const subject = randomUUID();
  const event = await db.outboxEvent.create({
    data: {
      type: 'document.ready',
      organizationId,
      isUat: false,
      subjectId: subject,
      payload: { job_id: subject, event: 'document.ready' },
      publishedAt: new Date(),
    },
  });
  return { organizationId, endpoint, event, subject };
}
