# Source this in a CSCS-CI job of a pull request: PR, REPOSITORY and COMPONENT from the
# pipeline's own variables, never from an artifact (a job that ran the code under test wrote
# those). cscs-ci runs a pull request's pipeline on a branch named after it (__CSCSCI__pr123
# and the like: the number after "pr", as icon4py's benchmark jobs read it).
# ICONBENCH_REPOSITORY (OWNER/NAME on GitHub, default: C2SM/<project>) and ICONBENCH_COMPONENT
# (icon4py, gt4py, dace or iconbench, default: the project's name) are the pipeline's.
PR="$(printf %s "${CI_COMMIT_BRANCH:-}" | grep -o 'pr[0-9][0-9]*' | head -n 1 | tr -d pr)"
COMPONENT="${ICONBENCH_COMPONENT:-${CI_PROJECT_NAME:-}}"
REPOSITORY="${ICONBENCH_REPOSITORY:-C2SM/${CI_PROJECT_NAME:-}}"
case "$COMPONENT" in icon4py|gt4py|dace|iconbench) ;; *)
    echo "pull-request: component '$COMPONENT' is not icon4py, gt4py, dace or iconbench; set ICONBENCH_COMPONENT" >&2
    return 2 ;;
esac
[[ "$REPOSITORY" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || {
    echo "pull-request: ICONBENCH_REPOSITORY '$REPOSITORY' is not OWNER/NAME" >&2; return 2; }
export PR COMPONENT REPOSITORY
