"""The PR bot: the gate summary as one living pull request comment and a commit status.

One concern per module:

| module | concern |
| --- | --- |
| ``summary`` | reads the gate summary (``iconbench-gate-summary`` v1) into typed values |
| ``target`` | the pull request and its GitHub host (github.com or Enterprise), commit links |
| ``links`` | links into the history site |
| ``render`` | the comment's markdown (``reporting/comment.md.j2``), kept under GitHub's limit |
| ``marker`` | the hidden marker; create-or-edit, and duplicates from runs at once merged |
| ``status`` | the commit status: state, one-line description, context |
| ``token`` | the token from the environment, masked everywhere |
| ``retry`` | which GitHub answers are retried, and how long to wait (bounded) |
| ``client`` | the REST calls over github3.py, with retries and one-line errors |
| ``publish`` | one run: render, upsert, status |
"""
