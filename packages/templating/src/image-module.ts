import type PizZip from 'pizzip';
import { BarcodeRequest } from '@docgen/expressions';
import { barcodeKey, DocumentBarcodes } from './document-barcodes';
import { imageDrawingXml } from './render/image-drawing';
import { RenderInputError } from './render/render-error';
import { addStoredPart } from './zip-entry';

export const IMAGE_MODULE_NAME = 'docgen/image';

export interface ImageData {
  data: Buffer;
  extension: 'png' | 'jpeg' | 'gif';
  /** Pixels; placed at 96 dpi, shrunk to the text width when wider. */
  width: number;
  height: number;
}

interface RenderPart {
  module?: string;
  value: string;
}

interface RenderOptions {
  filePath: string;
  scopeManager: { getValue: (tag: string, meta: { part: RenderPart }) => unknown };
}

const EMU_PER_PIXEL = 9_525;
const EMU_PER_TWIP = 635;
const CONTENT_TYPES: Record<ImageData['extension'], string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif' };

/**
 * `{%name}` image tags for docxtemplater (written for this project: the free image module is
 * unmaintained). Inspection needs only the matcher; rendering replaces the tag with an
 * inline picture whose bytes were fetched beforehand, keyed by the tag's value.
 */
export class ImageModule {
  readonly name = 'DocgenImageModule';
  private zip: PizZip | undefined;
  private counter = 0;
  private readonly usedExtensions = new Set<ImageData['extension']>();
  /** The parts (e.g. word/document.xml) that received a picture. */
  readonly partsWithImages = new Set<string>();
  private readonly media = new Map<string, string>();
  private readonly relationships = new Map<string, string>();
  /** Read from the template when the first image is placed (most renders place none). */
  textWidthEmu: number | undefined;

  constructor(
    private readonly images: Map<string, ImageData> = new Map(),
    /** Shared with the output estimate, which draws the codes first. */
    readonly barcodes = new DocumentBarcodes(),
  ) {}

  matchers(): [string, string, Record<string, unknown>][] {
    return [['%', IMAGE_MODULE_NAME, {}]];
  }

  optionsTransformer<T>(options: T, doc: { getZip: () => PizZip }): T {
    this.zip = doc.getZip();
    return options;
  }

  render(part: RenderPart, options: RenderOptions): { value: string; errors: Error[] } | null {
    if (part.module !== IMAGE_MODULE_NAME) return null;
    const value = options.scopeManager.getValue(part.value, { part });
    if (value === undefined || value === null || value === '') return { value: '', errors: [] };
    if (value instanceof BarcodeRequest) return this.place(options.filePath, barcodeKey(value), this.barcodes.draw(value, part.value));
    return this.place(options.filePath, String(value), this.images.get(String(value)), part);
  }

  private place(filePath: string, source: string, image: ImageData | undefined, part?: RenderPart): { value: string; errors: Error[] } {
    if (!image || !this.zip) throw new RenderInputError(`Image "${part?.value}" has no fetched image for its value`);
    this.counter += 1;
    // The zip still holds the template's own document.xml: docxtemplater writes its output after rendering.
    this.textWidthEmu ??= textWidthOf(this.zip) ?? 6 * 914_400;
    const relationshipId = this.relationshipFor(filePath, source, image);
    this.partsWithImages.add(filePath);
    const scale = Math.min(1, this.textWidthEmu / (image.width * EMU_PER_PIXEL));
    const cx = Math.round(image.width * EMU_PER_PIXEL * scale);
    const cy = Math.round(image.height * EMU_PER_PIXEL * scale);
    // The tag sits inside <w:t> in a run: close them, add a run with the picture, reopen.
    return { value: `</w:t></w:r><w:r>${imageDrawingXml(relationshipId, cx, cy, 1000 + this.counter)}</w:r><w:r><w:t xml:space="preserve">`, errors: [] };
  }

  /** One media file per distinct source and one relationship per part that shows it: a photo repeated in 100 rows is stored once. */
  private relationshipFor(partPath: string, source: string, image: ImageData): string {
    const key = `${partPath}\n${source}`;
    let relationshipId = this.relationships.get(key);
    if (relationshipId) return relationshipId;
    const zip = this.zip!;
    let mediaName = this.media.get(source);
    if (!mediaName) {
      mediaName = `docgen-image-${this.media.size + 1}.${image.extension}`;
      addStoredPart(zip, `word/media/${mediaName}`, image.data);
      this.media.set(source, mediaName);
    }
    const relsPath = partPath.replace(/^word\/([^/]+)$/, 'word/_rels/$1.rels');
    relationshipId = `rIdDocgenImage${this.relationships.size + 1}`;
    this.relationships.set(key, relationshipId);
    const rels =
      zip.file(relsPath)?.asText() ??
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
    zip.file(
      relsPath,
      rels.replace(
        '</Relationships>',
        `<Relationship Id="${relationshipId}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${mediaName}"/></Relationships>`,
      ),
    );
    this.usedExtensions.add(image.extension);
    return relationshipId;
  }

  /**
   * Declares the content types of the inserted images. Called after docxtemplater's render,
   * which writes its own copy of [Content_Types].xml at the end.
   */
  declareContentTypes(zip: PizZip): void {
    let types = zip.file('[Content_Types].xml')!.asText();
    for (const extension of this.usedExtensions) {
      if (new RegExp(`<Default Extension="${extension}"`, 'i').test(types)) continue;
      types = types.replace('</Types>', `<Default Extension="${extension}" ContentType="${CONTENT_TYPES[extension]}"/></Types>`);
    }
    zip.file('[Content_Types].xml', types);
  }
}

/** Page width less left and right margins of the first section, in EMU. */
function textWidthOf(zip: PizZip): number | undefined {
  const xml = zip.file('word/document.xml')?.asText() ?? '';
  const width = /<w:pgSz\b[^>]*w:w="(\d+)"/.exec(xml)?.[1];
  const left = /<w:pgMar\b[^>]*w:left="(\d+)"/.exec(xml)?.[1];
  const right = /<w:pgMar\b[^>]*w:right="(\d+)"/.exec(xml)?.[1];
  if (!width || !left || !right) return undefined;
  return (Number(width) - Number(left) - Number(right)) * EMU_PER_TWIP;
}
