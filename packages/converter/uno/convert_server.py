"""One warm LibreOffice, driven over UNO.

Started by the Node converter pool as its own process group (argv: soffice, profile dir, pipe
name, and optionally --reuse-frame). It starts soffice with a profile of its own, connects to it
over a named pipe, then converts one file at a time: a JSON request per line on stdin, a JSON
reply per line on stdout.

  request: {"id": "...", "input": "/abs/in.docx", "output": "/abs/out.pdf", "filter": "writer_pdf_Export",
            "filter_data": {"SelectPdfVersion": 2},   (optional: the export filter's options)
            "input_filter": "HTML (StarWriter)"}      (optional: the import filter, e.g. to open HTML as a text document)
           or, for several documents in one (a batch), "parts" instead of "output":
           "parts": [{"mark": "bookmark1", "output": "/abs/out1.pdf"}, ...]: each part, from its
           bookmark to the next one's, exported on its own (export_parts); and "sections": true
           when each part is a section of its own, starting on a new page (as batchDocx writes)
  reply:   {"id": "...", "ok": true}  or  {"id": "...", "ok": false, "crashed": false, "error": "..."}
           ("crashed": true when LibreOffice itself died meanwhile; the bridge then exits)

The first line written is {"ready": true} once LibreOffice answers (and, with --warm-up, once it
has converted a small document of its own: warm_up). Must run under Debian's
/usr/bin/python3, the one python3-uno is built for.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException

# com.sun.star.document.UpdateDocMode.NO_UPDATE / MacroExecMode.NEVER_EXECUTE:
# never refresh linked content or run macros while loading.
NO_UPDATE = 0
NEVER_EXECUTE = 0
PDF_FILTER = "writer_pdf_Export"


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start_office(soffice, profile_dir, pipe_name):
    args = [
        soffice, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
        "--nolockcheck", "--nofirststartwizard",
        "-env:UserInstallation=" + uno.systemPathToFileUrl(profile_dir),
        "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % pipe_name,
    ]
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sys.stderr)


def connect(pipe_name, office, timeout_s):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + timeout_s
    while True:
        if office.poll() is not None:
            raise RuntimeError("soffice exited with code %s while starting" % office.returncode)
        try:
            return resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe_name)
        except NoConnectException:
            if time.time() > deadline:
                raise RuntimeError("LibreOffice did not answer within %ss" % timeout_s)
            time.sleep(0.05)


class Converter:
    """Loads, exports and closes one document at a time.

    With reuse_frame (the tuned pool), every document after the first is loaded into the
    frame of the one before ("_self"), which saves LibreOffice a new frame and its windows per
    document (a few percent of its CPU, docs/BENCHMARKS.md). Replacing a document detaches it
    but does not close it, so the replaced one is closed by tidy(), after the reply: its
    closing is not on the next document's way out. The last document stays loaded until the
    next one replaces it or LibreOffice stops. A document the reused frame cannot take is loaded
    again in a new one, so a previous document can never make the next fail; any failure
    closes the frame, so the next document starts in a fresh one.
    """

    def __init__(self, ctx, reuse_frame):
        self.desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        self.pdf_defaults = pdf_export_settings(ctx)
        self.reuse_frame = reuse_frame
        self.frame = None
        self.document = None  # the one shown in self.frame
        self.replaced = None  # the one it replaced, closed by tidy()

    def convert(self, request):
        url = uno.systemPathToFileUrl(request["input"])
        load = (
            prop("Hidden", True),
            prop("ReadOnly", True),
            prop("UpdateDocMode", NO_UPDATE),
            prop("MacroExecutionMode", NEVER_EXECUTE),
        )
        if request.get("input_filter"):
            load += (prop("FilterName", request["input_filter"]),)
        document = None
        try:
            document = self.load(url, load)
            if document is None:
                raise RuntimeError("LibreOffice could not open the document")
            if document.getURL() != url:  # never export what an earlier request left in the frame
                raise RuntimeError("LibreOffice could not open the document")
            if "parts" in request:
                export_parts(document, request, self.pdf_defaults)
            else:
                document.storeToURL(uno.systemPathToFileUrl(request["output"]), store_args(request, self.pdf_defaults))
        except Exception:
            close_quietly(document)
            self.drop_frame()
            raise
        if self.reuse_frame:
            # Unmodified, so replacing it never asks whether to save it.
            document.setModified(False)
            # A document loaded "_self" is in self.frame already; asking its controller for the
            # frame would cost 14 bridge messages (pyuno inspects each object it is handed).
            if self.frame is None:
                self.frame = document.getCurrentController().getFrame()
            self.replaced, self.document = self.document, document
        else:
            document.close(True)

    def load(self, url, load):
        if self.frame is not None:
            try:
                document = self.frame.loadComponentFromURL(url, "_self", 0, load)
                if document is not None and document.getURL() == url:
                    return document
                close_quietly(document)
            except Exception:  # noqa: BLE001 - retried below in a new frame
                pass
            # Whatever the previous document left in its frame, it must not fail this one.
            self.drop_frame()
        return self.desktop.loadComponentFromURL(url, "_blank", 0, load)

    def tidy(self):
        replaced, self.replaced = self.replaced, None
        close_quietly(replaced)

    def drop_frame(self):
        self.tidy()
        document, self.document = self.document, None
        close_quietly(document)
        frame, self.frame = self.frame, None
        close_quietly(frame)


def export_parts(document, request, pdf_defaults):
    """Each part's pages exported as a PDF of its own, so each gets only its own fonts and
    their characters (cutting one PDF of them all apart would leave every part the whole
    batch's font subsets). Each export gets the request's options and the page range, over the
    profile's PDF settings, as a document exported alone does.

    Refused (so the caller converts each document alone) when a field in the loaded batch,
    however the DOCX spelt it, is not one whose value is the same in a batch as alone."""
    refuse_shared_content(document)
    marks = [part["mark"] for part in request["parts"]]
    # Asked for once: each object handed to Python costs ~15 bridge messages.
    controller = document.getCurrentController()
    cursor = controller.getViewCursor()
    by_sections = request.get("sections") and section_pages(document, controller, cursor, marks)
    ranges = by_sections or part_pages(document, controller, cursor, marks)
    for part, (first, last) in zip(request["parts"], ranges):
        options = dict(request.get("filter_data") or {}, PageRange="%d-%d" % (first, last), IsSkipEmptyPages=False)
        document.storeToURL(uno.systemPathToFileUrl(part["output"]), store_args(dict(request, filter_data=options), pdf_defaults))


# Fields whose value in a batch is what it is alone: the page number (numbering restarts at
# each document) and the template's dates, title, subject and author.
PER_DOCUMENT_FIELDS = {
    "com.sun.star.text.TextField.PageNumber",
    "com.sun.star.text.TextField.DateTime",
    "com.sun.star.text.TextField.Author",
    "com.sun.star.text.TextField.DocInfo.Title",
    "com.sun.star.text.TextField.DocInfo.Subject",
    "com.sun.star.text.TextField.DocInfo.CreateAuthor",
    "com.sun.star.text.TextField.DocInfo.CreateDateTime",
    "com.sun.star.text.TextField.DocInfo.ChangeDateTime",
    "com.sun.star.text.TextField.DocInfo.PrintDateTime",
}


def refuse_shared_content(document):
    fields = document.getTextFields().createEnumeration()
    while fields.hasMoreElements():
        services = set(fields.nextElement().getSupportedServiceNames())
        if not services & PER_DOCUMENT_FIELDS:
            raise RuntimeError("a field could count across the documents: %s" % sorted(services))


# Reading a page's style costs two messages, finding a part by its bookmark about 17.
PAGES_A_PART_WORTH_READING = 8


def section_pages(document, controller, cursor, marks):
    """Each part's first and last page when each part is exactly one section: the runs of pages
    of one page style, since LibreOffice gives each section of a DOCX a page style of its own
    ("Converted1", ...). Found with two calls a page that hand Python no object (part_pages hands
    it one a part, about 17 bridge messages). A part has at least one run of its own, so as many
    distinct runs as parts means one run a part. Otherwise None, and part_pages finds them by
    their bookmarks: a section with a first page of its own (two styles a section), or a
    LibreOffice that shared one style between alike sections (their runs merge, or a name
    repeats), or when the parts are long enough that reading every page costs more messages.
    Writer's inserted blank pages (jumpToPage refuses them) belong to no part.

    The marks must be there in order, as part_pages requires: bookmark names come in document order."""
    pages = controller.PageCount
    if pages > PAGES_A_PART_WORTH_READING * len(marks):
        return None  # long documents: fewer messages by their bookmarks
    wanted = set(marks)
    if [name for name in document.getBookmarks().getElementNames() if name in wanted] != marks:
        raise RuntimeError("the parts' marks are missing or out of order")
    runs = []  # [page style, first page, last page]
    for page in range(1, pages + 1):
        if not cursor.jumpToPage(page):
            continue
        style = cursor.PageStyleName
        if runs and runs[-1][0] == style:
            runs[-1][2] = page
        else:
            runs.append([style, page, page])
    if len(runs) != len(marks) or len({style for style, _, _ in runs}) != len(marks):
        return None
    return [(first, last) for _, first, last in runs]


def part_pages(document, controller, cursor, marks):
    """Each part's first and last page as laid out (physical pages, Writer's inserted blank
    pages counted): from its bookmark's page to the page before the next part's, less that
    page when it is a blank page Writer inserted so that the next part starts on a right-hand
    page (jumpToPage refuses those). The last part runs to the last page."""
    bookmarks = document.getBookmarks()
    firsts = []
    for mark in marks:
        # Selecting the bookmark (a point: batchDocx's marks are empty) puts the view cursor on
        # it. Every UNO object that reaches Python costs ~15 bridge messages (pyuno inspects it),
        # so not its anchor and the anchor's start as well (2.5 times the messages, 360 for 8 marks).
        controller.select(bookmarks.getByName(mark))
        firsts.append(cursor.getPage())
    ranges = []
    for i, first in enumerate(firsts):
        last = firsts[i + 1] - 1 if i + 1 < len(firsts) else controller.PageCount
        if i + 1 < len(firsts) and last > first and not cursor.jumpToPage(last):
            last -= 1
        if last < first:
            raise RuntimeError("the parts' pages overlap")
        ranges.append((first, last))
    return ranges


def pdf_export_settings(ctx):
    """The profile's PDF export settings (store_args says why they are needed; the JPEG
    quality of images is one that differs from the filter's built-in defaults, warm-pool.test.ts)."""
    provider = ctx.ServiceManager.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", ctx)
    access = provider.createInstanceWithArguments(
        "com.sun.star.configuration.ConfigurationAccess",
        (prop("nodepath", "/org.openoffice.Office.Common/Filter/PDF/Export"),),
    )
    return {name: access.getByName(name) for name in access.getElementNames()}


def close_quietly(closeable):
    if closeable is None:
        return
    try:
        closeable.close(True)
    except Exception:  # noqa: BLE001 - already closed or disposed with its frame
        pass


def store_args(request, pdf_defaults):
    """The store arguments of a request. The PDF filter reads the profile's settings only when
    it is given no options; given some (a page range, PDF/A), it takes its built-in defaults for
    every other, so the profile's settings go under the request's options."""
    args = [prop("FilterName", request["filter"])]
    options = request.get("filter_data")
    if options:
        if request["filter"] == PDF_FILTER:
            options = dict(pdf_defaults, **options)
        # FilterData is a sequence of PropertyValue; pyuno needs the sequence type spelt out.
        data = tuple(prop(name, value) for name, value in options.items())
        args.append(prop("FilterData", uno.Any("[]com.sun.star.beans.PropertyValue", data)))
    return tuple(args)


# A DOCX of a few lines in the fonts templates use most (Calibri and Arial, Times New Roman, as
# Carlito and the Liberation fonts), with a bold run and a table: what a first document loads.
WARM_UP_DOCX = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Target="word/document.xml" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/></Relationships>'
    ),
    "word/document.xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        + "".join(
            '<w:p><w:r><w:rPr><w:rFonts w:ascii="%s" w:hAnsi="%s"/><w:b/></w:rPr><w:t>Warm-up</w:t></w:r>'
            '<w:r><w:rPr><w:rFonts w:ascii="%s" w:hAnsi="%s"/></w:rPr><w:t xml:space="preserve"> 1,234.50</w:t></w:r></w:p>'
            % (font, font, font, font)
            for font in ("Calibri", "Arial", "Times New Roman")
        )
        + '<w:tbl><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/></w:tblBorders>'
        "</w:tblPr><w:tblGrid><w:gridCol w:w=\"4000\"/><w:gridCol w:w=\"4000\"/></w:tblGrid>"
        + "<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr>" * 2
        + "</w:tbl><w:p/></w:body></w:document>"
    ),
}


def warm_up(converter):
    """Converts WARM_UP_DOCX to PDF. LibreOffice loads its DOCX import, fonts, layout and PDF
    export on first use, which slowed an instance's first document by 100-300 ms; done here,
    before the bridge reports ready, a recycled instance's successor takes over warm. Returns
    the milliseconds it took; an instance that cannot convert it does not start."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="warm-up-") as directory:
        source = os.path.join(directory, "warm-up.docx")
        with zipfile.ZipFile(source, "w") as docx:
            for name, xml in WARM_UP_DOCX.items():
                docx.writestr(name, xml)
        try:
            converter.convert({"input": source, "output": os.path.join(directory, "warm-up.pdf"), "filter": PDF_FILTER})
        except Exception as error:
            raise RuntimeError("its warm-up conversion failed: %s" % error) from error
        converter.tidy()  # the document stays in the frame (unmodified, read-only) until the first one replaces it
    return round((time.monotonic() - started) * 1000)


def office_lost(office, converter):
    """soffice died (a crash, the OOM killer) rather than refused the document: any call over the bridge fails at once."""
    if office.poll() is not None:
        return True
    try:
        converter.desktop.getFrames()
        return False
    except Exception:  # noqa: BLE001 - a disposed bridge raises DisposedException or RuntimeException
        return True


def kill_group():
    # soffice and its helpers share our process group (the pool started us as its leader).
    os.killpg(os.getpgid(0), signal.SIGKILL)


def watch_parent(parent_pid):
    # If the Node worker dies without closing our stdin (SIGKILL, OOM), we are reparented;
    # take LibreOffice down with us instead of leaving it running forever.
    while True:
        if os.getppid() != parent_pid:
            kill_group()
        time.sleep(1)


def main():
    soffice, profile_dir, pipe_name = sys.argv[1], sys.argv[2], sys.argv[3]
    reuse_frame = "--reuse-frame" in sys.argv[4:]
    warm = "--warm-up" in sys.argv[4:]
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        serve(soffice, profile_dir, pipe_name, reuse_frame, warm)
    finally:
        kill_group()


def serve(soffice, profile_dir, pipe_name, reuse_frame, warm):
    office = start_office(soffice, profile_dir, pipe_name)
    try:
        converter = Converter(connect(pipe_name, office, 60), reuse_frame)
        warm_up_ms = warm_up(converter) if warm else None
    except Exception as error:  # noqa: BLE001 - reported to the pool, which restarts us
        reply({"ready": False, "error": str(error)})
        sys.exit(1)
    reply({"ready": True, "pid": office.pid, "warm_up_ms": warm_up_ms})
    for line in sys.stdin:
        request = json.loads(line)
        try:
            converter.convert(request)
            reply({"id": request["id"], "ok": True})
        except Exception as error:  # noqa: BLE001 - a failure belongs to this request, unless LibreOffice is gone
            lost = office_lost(office, converter)
            reply({"id": request["id"], "ok": False, "crashed": lost, "error": str(error)[:500]})
            if lost:
                sys.exit(1)
        converter.tidy()
    try:
        converter.desktop.terminate()
        office.wait(timeout=10)
    except Exception:  # noqa: BLE001 - soffice may already be gone; the group kill follows
        pass


if __name__ == "__main__":
    main()
