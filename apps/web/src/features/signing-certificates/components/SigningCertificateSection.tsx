import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useChosenFile } from '../../../components/useChosenFile';
import { formatTime } from '../../../lib/format';
import { useSigningCertificates, useUploadSigningCertificate, type SigningCertificate } from '../api/signing-certificates';

function CertificateDetails({ certificate }: { certificate: SigningCertificate }) {
  return (
    <dl className="details" aria-label="Current signing certificate">
      <dt>Subject</dt>
      <dd className="break">{certificate.subject}</dd>
      <dt>Issuer</dt>
      <dd className="break">{certificate.issuer}</dd>
      <dt>Valid from</dt>
      <dd>{formatTime(certificate.not_before)}</dd>
      <dt>Valid until</dt>
      <dd>{formatTime(certificate.not_after)}</dd>
    </dl>
  );
}

/** The production environment's PDF signing certificate (API.md §13, §14): upload a .p12 and see what is in use. */
export function SigningCertificateSection() {
  const certificates = useSigningCertificates();
  const upload = useUploadSigningCertificate();
  const chosen = useChosenFile('Choose a .p12 or .pfx file first.');
  const [password, setPassword] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = chosen.take();
    if (!file) return;
    upload.mutate(
      { file, password },
      {
        onSuccess: () => {
          setPassword('');
          chosen.clear();
        },
      },
    );
  };
  const current = certificates.data?.items[0];
  return (
    <section aria-labelledby="signing-heading" className="card">
      <h2 id="signing-heading">PDF signing</h2>
      <p>
        Documents that ask for <code>pdf_options.sign</code> are signed with this certificate (PAdES, SHA-256). Upload it as a PKCS#12 file (.p12 or .pfx) with
        its private key; a new upload replaces the current one. The key is stored encrypted and never shown again.
      </p>
      <form onSubmit={submit} className="row">
        <label>
          Signing certificate
          <input {...chosen.inputProps} name="file" accept=".p12,.pfx,application/x-pkcs12" />
        </label>
        <label className="grow">
          Certificate password
          <input type="password" autoComplete="off" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload certificate'}
        </button>
      </form>
      {chosen.alert}
      <ErrorAlert error={upload.isSuccess ? null : upload.error} title="The certificate was not uploaded" />
      {upload.isSuccess ? <p aria-live="polite">Certificate uploaded: documents are now signed with it.</p> : null}
      <ErrorAlert error={certificates.error} />
      {current ? <CertificateDetails certificate={current} /> : certificates.isSuccess ? <p>No signing certificate yet.</p> : null}
    </section>
  );
}
