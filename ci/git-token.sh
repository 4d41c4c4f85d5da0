# Source this in a ci/ script that pushes: with GITHUB_TOKEN set, this process's git sends it
# as a header to $GITHUB_SERVER_URL (default github.com), as actions/checkout would, so the
# workflows check out with persist-credentials: false and no checkout keeps a token on disk.
# shellcheck shell=bash
if [ -n "${GITHUB_TOKEN:-}" ]; then
    GIT_CONFIG_COUNT=1
    GIT_CONFIG_KEY_0="http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader"
    GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 -w0)"
    export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
fi
