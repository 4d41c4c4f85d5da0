"""Where the bot posts: a pull request of a repository on github.com or a GitHub Enterprise host.

Resolved once from the command line (``--repo OWNER/NAME --pr N --github-url URL``) into a
:class:`PullRequest`, checked before anything is sent, and passed to the client, the renderer
(its links) and the error lines (which name it).

>>> pr = PullRequest.parse("GridTools/gt4py", 1234)
>>> pr, pr.url
(GridTools/gt4py#1234, 'https://github.com/GridTools/gt4py/pull/1234')
>>> pr.commit_url("2db0abe"), pr.commit_url("2db0abe", "dace")
('https://github.com/GridTools/gt4py/commit/2db0abe', 'https://github.com/spcl/dace/commit/2db0abe')
>>> pr.holds("gt4py"), pr.holds("icon4py"), pr.holds("")
(True, False, False)
>>> PullRequest.parse("C2SM/icon4py", 7, github_url="https://ghe.example.org/").api_url
'https://ghe.example.org/api/v3'
>>> PullRequest.parse("gt4py", 1)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
iconbench.errors.IconbenchError: --repo 'gt4py': expected OWNER/NAME, e.g. GridTools/gt4py, ...
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse

from iconbench.errors import IconbenchError

GITHUB_COM = "https://github.com"
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")

#: The upstream repository of each stack component, for links to commits that are not in the
#: repository of the pull request (a gt4py commit in a comment on an icon4py pull request).
UPSTREAM = {
    "gt4py": "GridTools/gt4py",
    "dace": "spcl/dace",
    "icon4py": "C2SM/icon4py",
}


@dataclasses.dataclass(frozen=True)
class PullRequest:
    """A pull request: repository, number and the GitHub host it lives on."""

    owner: str
    name: str
    number: int
    #: Web URL of the host: ``https://github.com`` or the Enterprise base URL.
    web_url: str = GITHUB_COM

    @classmethod
    def parse(cls, repo: str, number: int, github_url: str | None = None) -> PullRequest:
        """Check ``OWNER/NAME``, the number and the URL; one line for each mistake."""
        if not _NAME.match(repo) or repo.endswith((".git", "/")):
            raise IconbenchError(
                f"--repo {repo!r}: expected OWNER/NAME, e.g. GridTools/gt4py, spcl/dace or "
                "C2SM/icon4py"
            )
        if number < 1:
            raise IconbenchError(f"--pr {number}: a pull request number is 1 or more")
        web = (github_url or GITHUB_COM).rstrip("/")
        parsed = urllib.parse.urlsplit(web)
        if parsed.scheme not in {"http", "https"} or not parsed.netloc:
            raise IconbenchError(
                f"--github-url {github_url!r}: expected the web address of a GitHub Enterprise "
                "server, e.g. https://github.example.org"
            )
        if web.endswith("/api/v3"):
            web = web.removesuffix("/api/v3")
        owner, name = repo.split("/")
        return cls(owner=owner, name=name, number=number, web_url=web)

    def __repr__(self) -> str:
        return f"{self.owner}/{self.name}#{self.number}"

    @property
    def repo(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def enterprise(self) -> bool:
        return self.web_url != GITHUB_COM

    @property
    def api_url(self) -> str:
        """REST API root: api.github.com, or ``<url>/api/v3`` as github3.py builds it."""
        return f"{self.web_url}/api/v3" if self.enterprise else "https://api.github.com"

    @property
    def url(self) -> str:
        return f"{self.web_url}/{self.repo}/pull/{self.number}"

    def holds(self, component: str) -> bool:
        """Whether ``component``'s commits (gt4py, dace, icon4py, iconbench) are this repository's.

        They are when the repository has the component's name (a fork too).
        """
        return bool(component) and component.lower() == self.name.lower()

    def commit_url(self, sha: str, component: str | None = None) -> str | None:
        """Link to ``sha``: in this repository when it is the component's, else upstream's.

        Returns None for a component with no known repository (iconbench's own commits).
        """
        if component is None or self.holds(component):
            return f"{self.web_url}/{self.repo}/commit/{sha}"
        upstream = UPSTREAM.get(component.lower())
        return f"{GITHUB_COM}/{upstream}/commit/{sha}" if upstream else None
