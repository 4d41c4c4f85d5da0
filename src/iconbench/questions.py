"""The questions a reader of the comment or the site asks, and the docs page that answers each.

Each question has one place in the documentation (a heading, whose anchor MyST and GitHub
derive alike). The nightly builds the docs (``ci/docs``) into the history site's ``docs/``,
so the site links to them relative to its root and the comment links to them on the site;
where no site is configured, the comment links to the page in the repository on GitHub.
Kept here, in one place, so the comment, the site and the docs agree on them
(``tests/docs/test_build.py`` checks each anchor in the built docs).

>>> Q_VALUE.on_site
'docs/explanation/statistics.html#what-does-q-mean'
>>> CHECK_TIME.on_github
'https://github.com/C2SM/iconbench/blob/main/docs/explanation/check-time.md#why-did-the-check-take-5-minutes'
"""

from __future__ import annotations

import dataclasses

#: The repository the docs pages live in, for links where no site is published.
REPOSITORY = "https://github.com/C2SM/iconbench"


@dataclasses.dataclass(frozen=True)
class Question:
    """A question, and the page and heading of the docs that answer it."""

    text: str
    #: the docs page, relative to docs/ and without its suffix
    page: str
    #: the heading's anchor on that page
    anchor: str

    @property
    def on_site(self) -> str:
        """The answer's address relative to the history site's root (its docs/ in HTML)."""
        return f"docs/{self.page}.html#{self.anchor}"

    @property
    def on_github(self) -> str:
        """The answer's page in the repository on GitHub (markdown, rendered by GitHub)."""
        return f"{REPOSITORY}/blob/main/docs/{self.page}.md#{self.anchor}"


Q_VALUE = Question("What does q mean?", "explanation/statistics", "what-does-q-mean")
INCONCLUSIVE = Question(
    "Why is this inconclusive?", "explanation/statistics", "why-is-this-inconclusive"
)
CHECK_TIME = Question(
    "Why did the check take 5 minutes?",
    "explanation/check-time",
    "why-did-the-check-take-5-minutes",
)
#: In the order the comment and the site list them.
QUESTIONS = (Q_VALUE, INCONCLUSIVE, CHECK_TIME)
