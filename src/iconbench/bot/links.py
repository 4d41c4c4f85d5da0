"""Links from a pull request comment and a commit status into the history site.

The site (``iconbench publish``) is a static tree: one page per program and the list of gate
verdicts, each comparison anchored by its two commits. The paths are kept here, in one
place, so the site and the bot agree on them.

>>> site = Site.parse("https://c2sm.github.io/iconbench/")
>>> site.report("0e8595e4aa", "412cde30bb")
'https://c2sm.github.io/iconbench/gates.html#0e8595e4aa..412cde30bb'
>>> site.program("compute_theta_rho_face_values")
'https://c2sm.github.io/iconbench/programs/compute_theta_rho_face_values.html'
>>> site.answer(questions.Q_VALUE)
'https://c2sm.github.io/iconbench/docs/explanation/statistics.html#what-does-q-mean'
>>> Site.parse("c2sm.github.io")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
iconbench.errors.IconbenchError: --site-url 'c2sm.github.io': expected the http(s) address ...
"""

from __future__ import annotations

import dataclasses
import urllib.parse

from iconbench import questions
from iconbench.errors import IconbenchError

#: Page paths of the history site, relative to its root.
OVERVIEW = "index.html"
VERDICTS = "gates.html"
PROGRAM = "programs/{program}.html"


@dataclasses.dataclass(frozen=True)
class Site:
    """The published history site's root URL."""

    root: str

    @classmethod
    def parse(cls, url: str) -> Site:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise IconbenchError(
                f"--site-url {url!r}: expected the http(s) address of the published history "
                "site, e.g. https://c2sm.github.io/iconbench"
            )
        return cls(root=url.rstrip("/"))

    def page(self, path: str) -> str:
        return f"{self.root}/{path}"

    @property
    def overview(self) -> str:
        return self.page(OVERVIEW)

    def report(self, base: str, head: str) -> str:
        """The full report of one comparison: its entry in the verdict list."""
        return f"{self.page(VERDICTS)}#{base[:10]}..{head[:10]}"

    def answer(self, question: questions.Question) -> str:
        """The docs page that answers ``question``, published with the site (its docs/)."""
        return self.page(question.on_site)

    def program(self, program: str) -> str:
        return self.page(PROGRAM.format(program=urllib.parse.quote(program, safe="._-")))
