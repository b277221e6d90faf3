"""A notebook with no active content: what nbgrader stores, renders as feedback and shows in formgrader.

nbconvert, which renders nbgrader's feedback pages and formgrader's view of a submission, puts a
markdown cell's raw HTML into the page as it is, and its links as they are: a student's
`<script>`, `<img onerror=…>`, `<svg onload=…>` or `[x](javascript:…)` would run in the
instructor's browser, in formgrader with the Jupyter server's origin and the instructor's
session. `inert` rewrites, in place, everything of a notebook that a page renders as HTML:

  * markdown and raw cells: link destinations whose scheme is not in PROTOCOLS become
    "#unsafe-link" (`[x](javascript:…)`, reference definitions too, entities and backslash
    escapes decoded first, as markdown does); quotes and angle brackets in a destination are
    percent-encoded. A cell with HTML in it goes through bleach (an allow-list sanitiser, as
    nbconvert's SanitizeHTML): tags of TAGS with attributes of ATTRIBUTES and URLs of
    PROTOCOLS are kept, any other tag is shown as the text it is (`&lt;script&gt;`), comments
    go. Markdown without a tag is left as it is;
  * attachments: raster images (ATTACHMENT_TYPES) with valid base64 only, under plain names;
    a reference to any other ("attachment:x.svg") becomes "#unsafe-link" (nbconvert would stop
    at a missing one: no feedback for anyone after it);
  * outputs: the types of SAFE_OUTPUTS kept (images only as valid base64), HTML and markdown
    through bleach as above, anything else (SVG, JavaScript, widgets) replaced by a line of
    text that says what was removed; output metadata: numbers only;
  * cell tags (which become CSS class names): plain words only;
  * the bidi controls (names.BIDI), in every cell's source and every output's text, as U+FFFD:
    they would make code or text read otherwise than it runs ("Trojan Source").
"""
from __future__ import annotations

import html
import re

from ..grading.names import BIDI

TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
        "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre",
        "s", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
        "thead", "tr", "u", "ul"}
ATTRIBUTES = {"a": ["href", "title"], "abbr": ["title"], "img": ["src", "alt", "title", "width", "height"],
              "td": ["colspan", "rowspan", "align"], "th": ["colspan", "rowspan", "align"]}
PROTOCOLS = {"http", "https", "mailto", "attachment"}
ATTACHMENT_TYPES = {"image/png", "image/jpeg", "image/gif"}
SAFE_OUTPUTS = {"text/plain", "text/latex"} | ATTACHMENT_TYPES
SANITIZED_OUTPUTS = {"text/html", "text/markdown"}
UNSAFE_LINK = "#unsafe-link"

# Where markdown (CommonMark, mistune) starts raw HTML or an autolink: an opening tag's name and
# what may follow it, a closing tag, a comment or declaration, a processing instruction, <scheme:
_TAG = re.compile(r"<(?:[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|[!?]|[A-Za-z][A-Za-z0-9+.\-]*:)")
_INLINE = re.compile(r"(\]\(\s*)(<[^>\n]*>|[^\s)]*)")
_DEFINITION = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*\n?[ \t]*)(<[^>\n]*>|\S+)", re.MULTILINE)
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_WORD = re.compile(r"[\w.\-]+")


def _attachment_ok(url: str, attachments) -> bool:
    """Not an attachment, or one the cell has (nbconvert fails on a missing one: no feedback)."""
    return not url.lower().startswith("attachment:") or url[len("attachment:"):] in attachments


def safe_destination(destination: str, attachments=frozenset()) -> str:
    """A markdown link destination with no scheme but PROTOCOLS, no attachment but one of
    `attachments` (the cell's), and no quote or angle bracket."""
    url = html.unescape(destination.strip("<>")).replace("\\", "")
    plain = "".join(c for c in url if c.isprintable() and not c.isspace())
    scheme = _SCHEME.match(plain.lower())
    if scheme and scheme[1] not in PROTOCOLS or not _attachment_ok(plain, attachments):
        return UNSAFE_LINK
    return "".join(f"%{ord(c):02X}" if c in "\"'<>" else c for c in destination.strip("<>"))


def safe_html(text: str, attachments=frozenset()) -> str:
    """`text` through bleach's allow-list (TAGS, ATTRIBUTES, PROTOCOLS); other tags as text;
    an image's source an attachment of `attachments` only."""
    import bleach

    def allowed(tag, name, value):
        return name in ATTRIBUTES.get(tag, ()) and (
            (tag, name) != ("img", "src") or _attachment_ok(value, attachments))
    return bleach.clean(text, tags=TAGS, attributes=allowed, protocols=PROTOCOLS,
                        strip=False, strip_comments=True)


def safe_markdown(source: str, attachments=frozenset()) -> str:
    """Markdown whose links and HTML are inert (see the module's docstring); `attachments`:
    the names of the cell's attachments."""
    def link(match):
        return match[1] + safe_destination(match[2], attachments)
    source = _DEFINITION.sub(link, _INLINE.sub(link, source))
    return safe_html(source, attachments) if _TAG.search(source) else source


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _shown(text: str) -> str:
    return BIDI.sub("\ufffd", text)


def _image(data) -> bool:
    return _BASE64.fullmatch(_text(data)) is not None


def safe_data(data: dict) -> dict:
    """An output's data (mimetype: content) with only what renders inert."""
    kept, removed = {}, []
    for kind, value in data.items():
        if kind in SAFE_OUTPUTS and (kind not in ATTACHMENT_TYPES or _image(value)):
            kept[kind] = value
        elif kind in SANITIZED_OUTPUTS:
            kept[kind] = safe_html(_text(value))
        else:
            removed.append(kind)
    if removed and "text/plain" not in kept:
        kept["text/plain"] = f"(removed by the autograder: {', '.join(map(str, removed))[:200]} output)"
    return kept


def _numbers(metadata) -> dict:
    """Output metadata with numbers only ({"image/png": {"width": 300}})."""
    if not isinstance(metadata, dict):
        return {}
    return {k: v for k, v in ((k, _numbers(v) if isinstance(v, dict) else v) for k, v in metadata.items())
            if isinstance(k, str) and _WORD.fullmatch(k) and (isinstance(v, dict) or
                                                              type(v) in (int, float))}


def inert(nb):
    """`nb` (an nbformat notebook) with no active content, changed in place; returns it."""
    for cell in nb.cells:
        cell["source"] = _shown(_text(cell.get("source", "")))
        if "attachments" in cell:
            attachments = cell["attachments"] if isinstance(cell["attachments"], dict) else {}
            kept = {name: {kind: data for kind, data in bundle.items()
                           if kind in ATTACHMENT_TYPES and _image(data)}
                    for name, bundle in attachments.items()
                    if isinstance(name, str) and _WORD.fullmatch(name) and isinstance(bundle, dict)}
            cell["attachments"] = {name: bundle for name, bundle in kept.items() if bundle}
        if cell.get("cell_type") in ("markdown", "raw"):
            cell["source"] = safe_markdown(cell["source"], cell.get("attachments", {}).keys())
        for output in cell.get("outputs", []):
            if "data" in output:
                output["data"] = safe_data(output["data"] if isinstance(output["data"], dict) else {})
            if "metadata" in output:
                output["metadata"] = _numbers(output["metadata"])
            for key in ("text", "evalue", "ename"):
                if key in output:
                    output[key] = _shown(_text(output[key]))
            if "traceback" in output:
                output["traceback"] = [_shown(_text(line)) for line in output["traceback"]]
            for kind, value in output.get("data", {}).items():
                if kind.startswith("text/"):
                    output["data"][kind] = _shown(_text(value))
        tags = cell.get("metadata", {}).get("tags")
        if tags is not None:
            cell["metadata"]["tags"] = [t for t in tags if isinstance(t, str) and _WORD.fullmatch(t)] \
                if isinstance(tags, list) else []
    return nb
