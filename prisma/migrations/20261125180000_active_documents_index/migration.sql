-- MAX_ACTIVE_PER_ORG: every POST /documents counts its organisation's documents queued or
-- rendering (up to the cap); this keeps that count to the organisation's active rows.
CREATE INDEX "documents_active_idx" ON "documents"("organization_id") WHERE "status" IN ('queued', 'rendering');
