"""The PR bot: the gate summary as a commit status and one living comment per check context.

One concern per module:

| module | concern |
| --- | --- |
| ``summary`` | reads the gate summary (``iconbench-gate-summary`` v1) into typed values |
| ``target`` | the pull request and its GitHub host (github.com or Enterprise), commit links |
| ``links`` | links into the history site |
| ``render`` | the comment's markdown (``reporting/comment.md.j2``), kept under GitHub's limit |
| ``marker`` | the hidden header of the bot's comment: context, run stamp, the status it set |
| ``upsert`` | the bot's own comment of a context: create or edit, settle on one (listing lag) |
| ``state`` | the job's memory of its comment ids (``--state``) |
| ``status`` | the commit status: state, one-line description, context |
| ``token`` | the token from the environment, masked everywhere |
| ``retry`` | which GitHub answers are retried, and how long to wait (bounded) |
| ``client`` | the REST calls over github3.py, with retries and one-line errors |
| ``publish`` | one run: status first, then the comment, then settle; failures as lines |
"""
