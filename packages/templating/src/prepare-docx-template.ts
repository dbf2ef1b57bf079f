import Docxtemplater from 'docxtemplater';
import InspectModule from 'docxtemplater/js/inspect-module.js';
import { XMLSerializer } from '@xmldom/xmldom';
import { checkLoopPlacement } from './check-loop-placement';
import { checkTagExpressions } from './expressions/check-tags';
import { removeExternalReferences } from './external-references';
import { refuseDocumentTypeDeclarations, refuseMalformedXml } from './package-links';
import { correctTokenNames, type CorrectedToken } from './correct-token-names';
import { issuesFromDocxtemplater } from './docxtemplater-errors';
import { DEFAULT_PACKAGE_LIMITS, openDocxPackage, partLabel, readPart, templatedParts, type PackageLimits } from './docx-package';
import { ImageModule } from './image-module';
import { scanPart } from './tag-scanner';
import { TemplateError, type TemplateIssue } from './template-error';
import { detectVariables, type InspectedPart, type TemplateVariable } from './variables';

export interface PreparedTemplate {
  /** The DOCX to store: token names corrected, otherwise byte-for-byte the upload's parts. */
  file: Buffer;
  variables: TemplateVariable[];
  correctedTokens: CorrectedToken[];
}

/** The options every docxtemplater instance of ours uses, for inspection and rendering alike. */
export const DOCXTEMPLATER_OPTIONS = { paragraphLoop: true, linebreaks: true, errorLogging: false } as const;

/**
 * Turns an uploaded DOCX into a stored template: rewrites token names with spaces, finds
 * every syntax problem (all of them, not just the first), and lists the variables.
 * Throws TemplateError('syntax', ..., issues) when the template cannot be rendered.
 */
export function prepareDocxTemplate(upload: Buffer, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): PreparedTemplate {
  const zip = openDocxPackage(upload, limits);
  refuseDocumentTypeDeclarations(zip);
  refuseMalformedXml(zip);
  const correctedTokens: CorrectedToken[] = [];
  const issues: TemplateIssue[] = [];
  let changed = false;

  for (const name of templatedParts(zip)) {
    const part = scanPart(readPart(zip, name, limits));
    if (part.tags.some((tag) => tag.prefix === '@')) {
      issues.push(
        ...part.tags
          .filter((t) => t.prefix === '@')
          .map((t) => ({ tag: t.raw, part: partLabel(name), message: 'Raw XML tags ({@name}) are not supported; use {name}' })),
      );
    }
    issues.push(...checkLoopPlacement(part.tags, partLabel(name)));
    const corrections = correctTokenNames(part);
    // A corrected `{client name}` is a name, not an expression.
    issues.push(
      ...checkTagExpressions(
        part.tags.filter((tag) => !corrections.some((c) => c.from === tag.name)),
        partLabel(name),
      ),
    );
    if (corrections.length > 0) {
      zip.file(name, new XMLSerializer().serializeToString(part.document));
      changed = true;
      for (const correction of corrections) {
        if (!correctedTokens.some((c) => c.from === correction.from)) correctedTokens.push(correction);
      }
    }
  }

  const inspector = new InspectModule();
  try {
    new Docxtemplater(zip, { ...DOCXTEMPLATER_OPTIONS, modules: [inspector, new ImageModule()] });
  } catch (error) {
    const fromDocxtemplater = issuesFromDocxtemplater(error);
    // A part docxtemplater reads that is not XML (checked above for the usual names, but it
    // follows relationships to any name).
    if (!fromDocxtemplater && (error as Error).name === 'ParseError') {
      throw new TemplateError('invalid', 'The DOCX holds a part that is not well-formed XML; open the file in Word, save it again and upload it');
    }
    if (!fromDocxtemplater) throw error;
    issues.push(...fromDocxtemplater);
  }
  if (issues.length > 0) throw syntaxError(issues);

  const { variables, issues: typeIssues } = detectVariables(inspector.getAllStructuredTags() as InspectedPart[]);
  if (typeIssues.length > 0) throw syntaxError(typeIssues);

  const corrected = changed ? zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }) : upload;
  return { file: removeExternalReferences(corrected), variables, correctedTokens };
}

function syntaxError(found: TemplateIssue[]): TemplateError {
  // Our own scan and docxtemplater's both find some problems (a `{@raw}` tag): each is listed once.
  const seen = new Set<string>();
  const issues = found.filter((issue) => {
    const key = JSON.stringify([issue.part ?? '', issue.tag ?? '', issue.message]);
    return !seen.has(key) && Boolean(seen.add(key));
  });
  const count = issues.length === 1 ? '1 error' : `${issues.length} errors`;
  return new TemplateError('syntax', `The template has ${count}; fix ${issues.length === 1 ? 'it' : 'them'} and upload again`, issues);
}
