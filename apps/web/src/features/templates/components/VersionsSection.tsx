import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useChosenFile } from '../../../components/useChosenFile';
import { ApiError } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';
import { formatTime } from '../../../lib/format';
import { useTemplateVersions } from '../api/list-template-versions';
import { usePromoteTemplate } from '../api/promote-template';
import { usePublishTemplateVersion } from '../api/publish-template-version';
import { useUploadTemplateVersion } from '../api/upload-template-version';
import { templatePath } from './TemplatesPage';

const isBreaking = (error: unknown): error is ApiError => error instanceof ApiError && error.code === 'breaking_change';

/**
 * A publish or promotion refused as breaking (409 breaking_change): what it would do in plain
 * words (the API's detail ends in `send "force": true`), each change it lists, and how to do
 * it anyway.
 */
interface Refusal {
  error: ApiError;
  title: string;
  force: () => void;
}
const refusalOf = (error: ApiError, title: string, headline: string, force: () => void): Refusal => ({
  error: new ApiError(error.status, headline, error.errors, error.code),
  title,
  force,
});

/**
 * The template's versions (API.md §12, §14): upload a new file as a draft, try a version in
 * the Generate section, publish one (an older one: a rollback), promote a UAT template to
 * production. A breaking change is refused with its list and `Publish anyway`.
 */
export function VersionsSection({ template, trying, onTry }: { template: Template; trying?: number; onTry: (version: number | undefined) => void }) {
  const versions = useTemplateVersions(template.id, template.is_uat);
  const upload = useUploadTemplateVersion();
  const publish = usePublishTemplateVersion();
  const promote = usePromoteTemplate();
  const html = template.format === 'html';
  const chosen = useChosenFile(html ? 'Choose an .html file first.' : 'Choose a .docx file first.');
  // What the last action achieved, in words (a live region announces it).
  const [notice, setNotice] = useState<{ text: string; warnings?: string[]; production?: Template }>();
  const [refusal, setRefusal] = useState<Refusal>();
  const [confirmPromote, setConfirmPromote] = useState(false);
  const refusalBox = useRef<HTMLDivElement>(null);
  // A refusal takes the focus: read first, and the next Tab is `Publish anyway`.
  useEffect(() => {
    if (refusal) refusalBox.current?.focus();
  }, [refusal]);

  const start = () => {
    setNotice(undefined);
    setRefusal(undefined);
  };

  const submitUpload = (event: FormEvent) => {
    event.preventDefault();
    const file = chosen.take();
    if (!file) return;
    start();
    upload.mutate(
      { id: template.id, isUat: template.is_uat, file },
      {
        onSuccess: (version) => {
          chosen.clear();
          setNotice({ text: `Version ${version.version} is a draft: try it, then publish it.`, warnings: version.warnings });
        },
      },
    );
  };

  const publishVersion = (version: number, force = false) => {
    start();
    publish.mutate(
      { id: template.id, isUat: template.is_uat, version, force },
      {
        onSuccess: (published) => {
          setNotice({ text: `Published version ${published.version}: documents use it from now on.` });
          if (trying === published.version) onTry(undefined);
        },
        onError: (error) => {
          if (isBreaking(error))
            setRefusal(
              refusalOf(error, `Version ${version} was not published`, `it would refuse inputs that version ${template.version} accepts.`, () =>
                publishVersion(version, true),
              ),
            );
        },
      },
    );
  };

  const promoteToProduction = (force = false) => {
    start();
    promote.mutate(
      { id: template.id, force },
      {
        onSuccess: (production) => setNotice({ text: `Promoted: “${production.name}” in Production is now at version ${production.version}.`, production }),
        onError: (error) => {
          if (isBreaking(error))
            setRefusal(
              refusalOf(
                error,
                'Not promoted to production',
                `version ${template.version} would refuse inputs that Production’s published version accepts.`,
                () => promoteToProduction(true),
              ),
            );
        },
        onSettled: () => setConfirmPromote(false),
      },
    );
  };

  const busy = publish.isPending || promote.isPending;
  const items = versions.data?.items ?? [];
  return (
    <section aria-labelledby="versions-heading" className="card versions">
      <h2 id="versions-heading">Versions</h2>
      <p className="hint">
        Version {template.version} is published: documents use it unless they name another. A new file becomes a draft; try it, then publish it. Publishing an
        older version rolls back to it.
        {template.promoted_from ? ` Version ${template.version} was promoted from UAT (its version ${template.promoted_from.version}).` : ''}
      </p>
      <ErrorAlert error={versions.error} />
      {versions.isPending ? <p className="hint">Loading the versions…</p> : null}
      {items.length > 0 ? (
        <div className="scroll-x" tabIndex={0} role="group" aria-labelledby="versions-caption">
          <table className="list versions">
            <caption id="versions-caption">Versions</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">By</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((version) => (
                <tr key={version.version}>
                  <th scope="row" data-label="Version">
                    {version.version}
                  </th>
                  <td data-label="Status">
                    <span className={`status status-${version.status}`}>{version.status}</span>
                    {version.version === trying ? <span className="hint"> · being tried</span> : null}
                  </td>
                  <td data-label="Created">
                    <time dateTime={version.created_at}>{formatTime(version.created_at)}</time>
                  </td>
                  <td data-label="By" className="break">
                    {version.created_by ?? '—'}
                  </td>
                  <td data-label="Actions">
                    {version.status === 'published' ? (
                      <span className="hint">In use</span>
                    ) : (
                      <div className="row tight">
                        <button type="button" className="secondary" disabled={busy} onClick={() => publishVersion(version.version)}>
                          Publish
                        </button>
                        <button
                          type="button"
                          className="secondary"
                          aria-pressed={version.version === trying}
                          onClick={() => onTry(version.version === trying ? undefined : version.version)}
                        >
                          Try this version
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      <div aria-live="polite">
        {notice ? (
          <div className="notice">
            <p>
              {notice.text} {notice.production ? <Link to={templatePath(notice.production.id, false)}>Open it in Production</Link> : null}
            </p>
            {notice.warnings?.length ? (
              <ul>
                {notice.warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </div>
      {refusal ? (
        <div ref={refusalBox} tabIndex={-1} className="refusal">
          <ErrorAlert error={refusal.error} title={refusal.title}>
            <p className="row tight">
              <button type="button" className="danger" disabled={busy} onClick={refusal.force}>
                Publish anyway
              </button>
              <span>Inputs that work today may then fail.</span>
            </p>
          </ErrorAlert>
        </div>
      ) : null}
      {isBreaking(publish.error) ? null : <ErrorAlert error={publish.error} title="Not published" />}
      {isBreaking(promote.error) ? null : <ErrorAlert error={promote.error} title="Not promoted to production" />}

      <form onSubmit={submitUpload} className="row version-upload">
        <label>
          New version file
          <input {...chosen.inputProps} name="file" accept={html ? '.html,.htm' : '.docx'} />
        </label>
        <button type="submit" disabled={upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload new version'}
        </button>
      </form>
      {chosen.alert}
      <ErrorAlert error={upload.error} title="The new version was not uploaded" />
      {template.is_uat ? (
        <p className="row tight">
          <button type="button" className="secondary" onClick={() => setConfirmPromote(true)} disabled={busy}>
            Promote to production
          </button>
          <span className="hint">Production gets version {template.version}, as published here.</span>
        </p>
      ) : null}
      {confirmPromote ? (
        <ConfirmDialog
          title={`Promote “${template.name}” to production?`}
          confirmLabel="Promote"
          tone="primary"
          busy={promote.isPending}
          onCancel={() => setConfirmPromote(false)}
          onConfirm={() => promoteToProduction()}
        >
          <p>
            Production gets version {template.version} of this UAT template: the first time as a new template of the same name, afterwards as a new published
            version of it. Production documents use it at once.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
