import type { ProfileSetting } from './hardened-profile';
import { pdfFilterData, type FilterData, type PdfStandard } from './pdf-standard';

/**
 * Which LibreOffice setup a warm pool runs: 'tuned' (the default) adds PERFORMANCE_SETTINGS to
 * the hardened profile and passes PDF export options; 'untuned' is the hardened profile and the
 * export filter's own defaults, kept so the benchmark can measure one against the other.
 */
export type ProfileTuning = 'tuned' | 'untuned';

/**
 * Profile settings that spare a headless converter work it never needs, without changing what
 * it writes (text, fonts, layout: the PDFs are compared in performance-profile.test.ts). Each
 * path and name is checked against LibreOffice 7.4's schema (share/registry/main.xcd); the
 * hardening settings come first and are never changed by these.
 */
export const PERFORMANCE_SETTINGS: ProfileSetting[] = [
  // Online spell and grammar checking run as idle jobs over every paragraph of an open document
  // (and would load dictionaries and checkers, were any installed); a PDF shows no squiggles.
  { path: '/org.openoffice.Office.Linguistic/SpellChecking', name: 'IsSpellAuto', value: 'false' },
  { path: '/org.openoffice.Office.Linguistic/GrammarChecking', name: 'IsAutoCheck', value: 'false' },
  // Writer's word completion collects the words of every loaded document into a list (an idle
  // job); nobody types here.
  { path: '/org.openoffice.Office.Writer/AutoFunction/Completion', name: 'Enable', value: 'false' },
  { path: '/org.openoffice.Office.Writer/AutoFunction/Completion', name: 'CollectWords', value: 'false' },
  // Every loaded document went into the recent-documents list, a configuration change written
  // back to registrymodifications.xcu; with no list there is nothing to add or write.
  { path: '/org.openoffice.Office.Common/History', name: 'PickListSize', value: '0' },
  { path: '/org.openoffice.Office.Common/History', name: 'RecentDocsThumbnail', value: 'false' },
  // No thumbnail rendered into saved packages, no autosave timer, no recovery bookkeeping per
  // document: the converter never saves a document of its own and never restores one.
  { path: '/org.openoffice.Office.Common/Save/Document', name: 'GenerateThumbnail', value: 'false' },
  { path: '/org.openoffice.Office.Common/Save/Document', name: 'AutoSave', value: 'false' },
  { path: '/org.openoffice.Office.Common/Save/Document', name: 'CreateBackup', value: 'false' },
  { path: '/org.openoffice.Office.Recovery/AutoSave', name: 'Enabled', value: 'false' },
  { path: '/org.openoffice.Office.Recovery/RecoveryInfo', name: 'Enabled', value: 'false' },
];

/** PDF export options (FilterData) of a tuned pool. */
export const TUNED_PDF_OPTIONS: FilterData = {};

/**
 * The export options for a PDF: the PDF/A options when a standard is asked for (pdf-standard.ts),
 * merged over the tuned defaults, never overridden by them; undefined (the filter's own defaults)
 * for a plain PDF from an untuned pool.
 */
export function pdfExportOptions(standard: PdfStandard | undefined, tuning: ProfileTuning): FilterData | undefined {
  const archival = pdfFilterData(standard);
  if (tuning === 'untuned') return archival;
  return { ...TUNED_PDF_OPTIONS, ...archival };
}
