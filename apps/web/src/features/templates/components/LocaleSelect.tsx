import { ErrorAlert } from '../../../components/ErrorAlert';
import type { Template } from '../../../lib/api-types';
import { useUpdateTemplate } from '../api/update-template';

/** Locales authors reach for first; the template's own stays in the list whatever it is. */
const COMMON_LOCALES = [
  'en-US',
  'en-GB',
  'de-DE',
  'de-CH',
  'fr-FR',
  'fr-CH',
  'es-ES',
  'it-IT',
  'nl-NL',
  'pt-BR',
  'pl-PL',
  'sv-SE',
  'da-DK',
  'ja-JP',
  'zh-CN',
  'ko-KR',
  'ar-EG',
  'he-IL',
  'hi-IN',
  'ru-RU',
  'uk-UA',
  'el-GR',
  'tr-TR',
];

function localeName(tag: string): string {
  try {
    return `${new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag} (${tag})`;
  } catch {
    return tag;
  }
}

/** Select "Locale": numbers and dates render in it; saved at once (PATCH /templates/{id}). */
export function LocaleSelect({ template }: { template: Template }) {
  const update = useUpdateTemplate();
  const locales = COMMON_LOCALES.includes(template.locale) ? COMMON_LOCALES : [template.locale, ...COMMON_LOCALES];
  const value = update.isPending && update.variables.locale ? update.variables.locale : template.locale;
  return (
    <div className="stack">
      <label>
        Locale
        <select
          value={value}
          aria-describedby="locale-hint"
          onChange={(e) => update.mutate({ id: template.id, isUat: template.is_uat, locale: e.target.value })}
        >
          {locales.map((tag) => (
            <option key={tag} value={tag}>
              {localeName(tag)}
            </option>
          ))}
        </select>
      </label>
      <p id="locale-hint" className="hint">
        Numbers, currencies and month names are written in it.
      </p>
      <ErrorAlert error={update.error} title="The locale was not saved" />
    </div>
  );
}
