import { usePageTitle } from '../../components/usePageTitle';
import { ApiKeysSection } from '../../features/api-keys/components/ApiKeysSection';
import { SigningCertificateSection } from '../../features/signing-certificates/components/SigningCertificateSection';
import { WebhooksSection } from '../../features/webhooks/components/WebhooksSection';

export function DeveloperPage() {
  usePageTitle('Developer settings');
  return (
    <main>
      <h1>Developer settings</h1>
      <ApiKeysSection />
      <WebhooksSection />
      <SigningCertificateSection />
    </main>
  );
}
