r"""Text a pull request controls, made inert where it lands: GitHub markdown, a status, HTML.

Program, variant, kernel and branch names, error text and generated-code diffs come from the
code under test (a fork's, perhaps); the comment, the commit status and the site show them.
Each place has one function here, and every renderer calls it, so a crafted name cannot close
a table row, a ``<details>`` or a code fence, add a link, an image or an ``@``-mention, or run
script on the site.

>>> print(code("a|b"), code("x` [l](http://e) @me"))
`a\|b` ``x` [l](http://e) @me``
>>> print(text("see @octocat, [x](http://e) <b>").replace(ZWNJ, "^"))
see @^octocat, \[x\](http^://e) &lt;b&gt;
>>> "```" in in_fence("a\n````\nb")
False
>>> html("<script>")
'&lt;script&gt;'
"""

from __future__ import annotations

import html as _html
import re
import urllib.parse

#: A zero-width non-joiner: put after ``@`` (and inside ``://``, ``www.``) it keeps the text
#: as it reads while GitHub no longer sees a mention or an autolink.
ZWNJ = "\u200c"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_PUNCTUATION = re.compile(r"([\\`*\[\]|~])")
_MENTION = re.compile(r"(?<!\w)@(?=\w)")
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=\bwww)(?=\\?\.)")


def one_line(value: object, limit: int | None = None) -> str:
    """``value`` as one line: control and bidirectional characters dropped, space collapsed."""
    line = " ".join(_CONTROL.sub(" ", str(value)).split())
    if limit is not None and len(line) > limit:
        line = line[: max(0, limit - 1)] + "…"
    return line


def code(value: object, *, limit: int | None = None) -> str:
    """A name as inline code: nothing in it is markdown (GitHub renders a code span as text).

    The fence is one backtick longer than the longest run inside; a ``|`` is escaped, as
    GitHub splits a table row at every unescaped one, code spans included.
    """
    name = one_line(value, limit).replace("|", "\\|")
    if not name:
        return ""
    runs = [len(run) for run in re.findall(r"`+", name)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if name.startswith("`") or name.endswith("`") else ""
    return f"{fence}{pad}{name}{pad}{fence}"


def text(value: object, *, limit: int | None = None) -> str:
    """Free text on one line (an error, a note): shown as written, never as markup.

    Markdown's punctuation is backslash-escaped, ``<``, ``>`` and ``&`` are entities, and a
    zero-width non-joiner breaks every ``@``-mention and autolink.
    """
    line = one_line(value, limit)
    line = _html.escape(line, quote=False)  # & < > first: the escapes below add none
    line = _PUNCTUATION.sub(r"\\\1", line)
    line = _MENTION.sub("@" + ZWNJ, line)
    return _AUTOLINK.sub(ZWNJ, line)


def in_fence(value: str) -> str:
    """Lines for inside a ```` ``` ```` code fence: no line of them can close it."""
    return re.sub(r"`{3,}", lambda run: "`" + "\u200b`" * (len(run.group()) - 1), value)


def url(value: str) -> str:
    """A URL for a markdown link target: the characters that would end ``(…)`` encoded."""
    return urllib.parse.quote(one_line(value), safe=":/?#&=%._~-+,;@!$'*")


def status(value: object, limit: int) -> str:
    """A commit status description: one line of plain text (GitHub shows it as text)."""
    return one_line(value, limit)


def html(value: object) -> str:
    """Text for an HTML page or an SVG element or attribute."""
    return _html.escape(str(value), quote=True)
