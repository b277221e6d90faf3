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
  * outputs: the types of SAFE_OUTPUTS kept (images only as valid base64), HTML and markdown
    through bleach as above, anything else (SVG, JavaScript, widgets) replaced by a line of
    text that says what was removed; output metadata: numbers only;
  * cell tags (which become CSS class names): plain words only.
"""
from __future__ import annotations

import html
import re

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


def safe_destination(destination: str) -> str:
    """A markdown link destination with no scheme but PROTOCOLS, and no quote or angle bracket."""
    url = html.unescape(destination.strip("<>")).replace("\\", "")
    plain = "".join(c for c in url if c.isprintable() and not c.isspace()).lower()
    scheme = _SCHEME.match(plain)
    if scheme and scheme[1] not in PROTOCOLS:
        return UNSAFE_LINK
    return "".join(f"%{ord(c):02X}" if c in "\"'<>" else c for c in destination.strip("<>"))


def safe_html(text: str) -> str:
    """`text` through bleach's allow-list (TAGS, ATTRIBUTES, PROTOCOLS); other tags as text."""
    import bleach
    return bleach.clean(text, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS,
                        strip=False, strip_comments=True)


def safe_markdown(source: str) -> str:
    """Markdown whose links and HTML are inert (see the module's docstring)."""
    def link(match):
        return match[1] + safe_destination(match[2])
    source = _DEFINITION.sub(link, _INLINE.sub(link, source))
    return safe_html(source) if _TAG.search(source) else source


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


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
        if cell.get("cell_type") in ("markdown", "raw"):
            cell["source"] = safe_markdown(_text(cell.get("source", "")))
        if "attachments" in cell:
            attachments = cell["attachments"] if isinstance(cell["attachments"], dict) else {}
            cell["attachments"] = {
                name: {kind: data for kind, data in bundle.items()
                       if kind in ATTACHMENT_TYPES and _image(data)}
                for name, bundle in attachments.items()
                if isinstance(name, str) and _WORD.fullmatch(name) and isinstance(bundle, dict)}
        for output in cell.get("outputs", []):
            if "data" in output:
                output["data"] = safe_data(output["data"] if isinstance(output["data"], dict) else {})
            if "metadata" in output:
                output["metadata"] = _numbers(output["metadata"])
        tags = cell.get("metadata", {}).get("tags")
        if tags is not None:
            cell["metadata"]["tags"] = [t for t in tags if isinstance(t, str) and _WORD.fullmatch(t)] \
                if isinstance(tags, list) else []
    return nb
