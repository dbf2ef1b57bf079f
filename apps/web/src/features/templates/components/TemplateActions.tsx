import './template-page.css';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorAlert } from '../../../components/ErrorAlert';
import type { Template } from '../../../lib/api-types';
import { useDeleteTemplate } from '../api/delete-template';
import { templateFileUrl } from '../api/template-file-url';
import { useUpdateTemplate } from '../api/update-template';
import { copyText } from './copy-text';

/** Rename, download the original, copy the id, delete: the template's own actions, quiet beside its name. */
export function TemplateActions({ template }: { template: Template }) {
  const navigate = useNavigate();
  const rename = useUpdateTemplate();
  const remove = useDeleteTemplate();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(template.name);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [copied, setCopied] = useState('');
  const listPath = template.is_uat ? '/templates?is_uat=true' : '/templates';

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ id: template.id, isUat: template.is_uat, name: name.trim() }, { onSuccess: () => setRenaming(false) });
  };

  const download = () => {
    const link = document.createElement('a');
    link.href = templateFileUrl(template.id, template.is_uat);
    link.download = `${template.name}.docx`;
    link.click();
  };

  return (
    <div className="template-actions stack">
      <div className="row tight">
        <button
          type="button"
          className="secondary"
          aria-expanded={renaming}
          onClick={() => {
            setName(template.name);
            rename.reset();
            setRenaming(!renaming);
          }}
        >
          Rename
        </button>
        <button type="button" className="secondary" onClick={download}>
          Download template
        </button>
        <button type="button" className="secondary" onClick={async () => setCopied(await copyText(template.id))}>
          Copy template ID
        </button>
        <button type="button" className="secondary danger-text" onClick={() => setConfirmDelete(true)}>
          Delete template
        </button>
      </div>
      <p className="hint">
        ID <code className="break">{template.id}</code> <span aria-live="polite">{copied}</span>
      </p>
      {renaming ? (
        <form onSubmit={submitRename} className="row">
          <label className="grow">
            Template name
            <input
              type="text"
              value={name}
              required
              maxLength={200}
              autoFocus
              onChange={(e) => setName(e.target.value)}
              aria-invalid={rename.error ? true : undefined}
              aria-describedby={rename.error ? 'rename-error' : undefined}
            />
          </label>
          <button type="submit" disabled={rename.isPending || !name.trim()}>
            Save
          </button>
          <button type="button" className="secondary" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      {rename.error ? (
        <div id="rename-error">
          <ErrorAlert error={rename.error} title="The template was not renamed" />
        </div>
      ) : null}
      <ErrorAlert error={remove.error} title="The template was not deleted" />
      {confirmDelete ? (
        <ConfirmDialog
          title={`Delete “${template.name}”?`}
          confirmLabel="Delete"
          onCancel={() => setConfirmDelete(false)}
          onConfirm={() =>
            remove.mutate(
              { id: template.id, isUat: template.is_uat },
              {
                onSuccess: () => void navigate(listPath, { state: { deleted: template.name } }),
                onSettled: () => setConfirmDelete(false),
              },
            )
          }
        >
          <p>It leaves the list and can no longer be used to generate documents. Documents made from it stay readable.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
