import { buildDocx, paragraph, type ApiClient } from '@docgen/testing';
import { eventually } from '../support';

export { eventually };

/** A one-line DOCX template with a required {client_name}. */
export async function uploadInvoiceTemplate(api: ApiClient): Promise<string> {
  return (await api.uploadTemplate(buildDocx({ body: paragraph('Invoice for {client_name}') }), 'Invoice.docx')).id;
}
