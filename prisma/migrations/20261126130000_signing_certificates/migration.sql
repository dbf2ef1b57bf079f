-- API.md §13: one signing certificate per organisation and environment; an upload replaces
-- the previous one. The private key is stored only inside key_envelope (AES-256-GCM under a
-- per-certificate data key, wrapped by SECRETS_KEY: docs/finishing.md); certificate_chain
-- is public (PEM, the signer's certificate first).
CREATE TABLE "signing_certificates" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "is_uat" BOOLEAN NOT NULL DEFAULT false,
    "subject" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "not_before" TIMESTAMPTZ(3) NOT NULL,
    "not_after" TIMESTAMPTZ(3) NOT NULL,
    "certificate_chain" TEXT NOT NULL,
    "key_envelope" JSONB NOT NULL,
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signing_certificates_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "signing_certificates_organization_id_is_uat_key" ON "signing_certificates"("organization_id", "is_uat");

ALTER TABLE "signing_certificates" ADD CONSTRAINT "signing_certificates_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
