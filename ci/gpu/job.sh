#!/usr/bin/env bash
# A whole GPU job on a runner whose commands may be time-limited (e.g. 10 minutes each):
# the job runs in the background (its own session, so it outlives the command that started
# it) and every call waits on it for a while, prints its progress and copies what exists so
# far to $OUT/run.tar.gz. Steps, each resumable from its ledger (iconbench suite):
#   precompile -> verify (iconbench verify on tiny_lam) -> measure -> crosscheck -> ncu -> asv
# Usage (repository root, wheels in .whl/):
#   ICONBENCH_COMMIT=<sha> bash ci/gpu/job.sh start gtfn_gpu,dace_gpu [WAIT_S]
#   bash ci/gpu/job.sh wait [WAIT_S]
# Environment: ICONBENCH_EXPERIMENT (e.g. mch_icon-ch1_medium: every program in the variants
# the experiment runs, on its grid), ICONBENCH_GPU_GRID (default: the experiment's grid, else
# ch1_medium), ICONBENCH_RESULTS (a committed result directory of this stack whose ledgers the
# job continues, e.g. results/h100-ch1_medium-dace-2.0.0a6; default: none, the job starts
# afresh; a result directory keeps one stack), ICONBENCH_VARIANTS=all (default:
# the first variant of each program), ICONBENCH_CHECKS (programs per backend cross-checked, 5;
# 0 skips the cupyx and ncu checks), ICONBENCH_VERIFY (backends to verify, default all; none
# skips verification), ICONBENCH_MEASURE_S (seconds kept after compiling for measuring and
# the rest, 600), ICONBENCH_DEADLINE_S (seconds the whole job may take: compiling and
# measuring stop in time for the checks and result files), ICONBENCH_GRANULES=1 (also time the
# diffusion and solve_nonhydro granules on the same grid: `iconbench granules measure`; their
# programs build beside the suite's compiles, their timing runs after the suite's, alone).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
run=/tmp/iconbench-run
action="${1:-wait}"

pipeline() {
    local backends="$1" grid="${ICONBENCH_GPU_GRID:-}"
    # the committed result directory this job continues (its ledgers), if any, and the one it writes
    local results="${ICONBENCH_RESULTS:-}"
    local out="$run/${results##*/}"
    [ -n "$results" ] || out="$run/gpu-${ICONBENCH_EXPERIMENT:-${grid:-ch1_medium}}"
    local variants=(--one-variant) checks="${ICONBENCH_CHECKS:-5}"
    local deadline=$((SECONDS + ${ICONBENCH_DEADLINE_S:-100000}))
    [ "${ICONBENCH_VARIANTS:-}" = all ] && variants=()
    local selection=(--grid "${grid:-ch1_medium}")
    if [ -n "${ICONBENCH_EXPERIMENT:-}" ]; then
        # the experiment chooses the variants (and, unless ICONBENCH_GPU_GRID, the grid)
        variants=()
        selection=(--experiment "$ICONBENCH_EXPERIMENT")
        [ -n "$grid" ] && selection+=(--grid "$grid")
    fi
    local granules=(--grid "${grid:-ch1_medium}")
    [ -n "${ICONBENCH_EXPERIMENT:-}" ] && granules=("${selection[@]}")
    cd "$root" || exit 1
    # shellcheck source=/dev/null
    source ci/gpu-env.sh || exit 1
    export PYTHONUNBUFFERED=1
    mkdir -p "$out/work"
    # ledgers of earlier jobs continue (measured cases are not redone; results append-only);
    # `start` has set aside whatever an earlier job left on this machine
    # (a committed directory's ledgers are in git history: results/archive.json)
    [ -n "$results" ] && python3 -m iconbench results fetch "$results/work" --repo "$root" >&2
    if [ -n "$results" ] && compgen -G "$results/work/*.jsonl" >/dev/null; then
        cp "$results"/work/*.jsonl "$out/work/"
    fi
    nvidia-smi >"$run/nvidia-smi.txt" 2>&1
    local suite=(python3 -m iconbench suite --out "$out" --backends "$backends" "${selection[@]}")
    "${suite[@]}" plan "${variants[@]}"
    local granules_pid=""
    if [ "${ICONBENCH_GRANULES:-0}" = 1 ]; then
        # one call of each case builds the granules' programs into the persistent cache
        python3 -m iconbench granules measure --backends "$backends" "${granules[@]}" \
            --samples 1 --out "$run/granules-build" >"$run/granules-build.log" 2>&1 &
        granules_pid=$!
    fi
    # no compile starts later than ICONBENCH_MEASURE_S before the deadline (what `plan` says
    # measuring will take, plus the checks and result files)
    local reserve="${ICONBENCH_MEASURE_S:-600}"
    "${suite[@]}" precompile "${variants[@]}" --budget $((deadline - SECONDS - reserve))
    # verification first, then the measurements alone on the machine: run beside them (run of
    # fd920c0), the verify job's compiles and small-grid calls put outliers of 1.2-2.4x the median
    # into 19 of 149 cases (CV up to 16 %; the minimum unchanged); alone, 49/49 stayed below 1 %
    for backend in ${ICONBENCH_VERIFY:-${backends//,/ }}; do
        [ "$backend" = none ] && break
        [ "$SECONDS" -lt $((deadline - reserve)) ] || { echo "verify: skipped, deadline"; break; }
        python3 -m iconbench verify --backends "$backend" --grid tiny_lam "${variants[@]}" \
            --jobs "$(($(nproc) - 2))" --out "$run/verify-$backend-tiny_lam.md" \
            >>"$run/verify.log" 2>&1
        grep -A3 "^backend " "$run/verify.log" | tail -n 2
    done
    # leave 4 minutes of the deadline for the cross-checks and the result files (1 minute for
    # the result files alone); cases whose device CV exceeded 1 % are measured again
    local after=240
    [ "$checks" -gt 0 ] || after=60
    if [ -n "$granules_pid" ]; then
        after=$((after + 180))
        wait "$granules_pid"
        echo "granules build: $?"
    fi
    "${suite[@]}" measure "${variants[@]}" --compiled-only --retry-failed --remeasure-cv-above 0.01 \
        --budget $((deadline - SECONDS - after))
    if [ "${ICONBENCH_GRANULES:-0}" = 1 ]; then
        python3 -m iconbench granules measure --backends "$backends" "${granules[@]}" \
            --out "$out/granules" >"$run/granules.log" 2>&1
        echo "granules measure: $?"
        tail -n 20 "$run/granules.log"
    fi
    if [ "$checks" -gt 0 ]; then
        "${suite[@]}" crosscheck --crosscheck "$checks"
        "${suite[@]}" ncu --crosscheck 3
    fi
    "${suite[@]}" asv "${variants[@]}"
    echo "pipeline finished: $?"
}

collect() {
    [ -n "${OUT:-}" ] || return 0
    tar -C "$run" -czf "$OUT/run.tar.gz" --exclude='*.tmp' . 2>/dev/null
    cp "$run/pipeline.log" "$OUT/" 2>/dev/null
}

wait_for() {
    local limit="$1" start=$SECONDS
    if [ ! -f "$run/pipeline.log" ]; then
        # a machine where no job was started (e.g. a fresh one): waiting would only spend time
        echo "job.sh: no pipeline on this machine (no job was started here);" \
            "start again: bash ci/gpu/job.sh start BACKENDS" >&2
        exit 3
    fi
    while [ $((SECONDS - start)) -lt "$limit" ] && ! grep -q "^pipeline finished" "$run/pipeline.log"; do
        if ! kill -0 "$(cat "$run/pipeline.pid" 2>/dev/null)" 2>/dev/null; then
            echo "job.sh: the pipeline stopped without finishing; see pipeline.log" >&2
            break
        fi
        sleep 10
    done
    grep -E "^\[|precompile:|measure:|granules|within 5%|ratio|^pipeline|Error|error" "$run/pipeline.log" |
        tail -n 60
    [ -f "$run/verify.log" ] && grep -E "^\[|^backend|^[a-z_]+_gpu " "$run/verify.log" | tail -n 3
    collect
}

case "$action" in
start)
    if kill -0 "$(cat "$run/pipeline.pid" 2>/dev/null)" 2>/dev/null; then
        echo "job.sh: a pipeline is already running on this machine; use: job.sh wait" >&2
        exit 3
    fi
    backends="${2:?usage: $0 start BACKEND[,BACKEND] [WAIT_S], e.g. gtfn_gpu,dace_gpu}"
    # a machine that ran an earlier job keeps its files: set them aside, not into this run
    [ -d "$run" ] && mv "$run" "$run.before-$(date +%s)"
    mkdir -p "$run"
    setsid bash "$0" pipeline "$backends" >"$run/pipeline.log" 2>&1 < /dev/null &
    echo $! >"$run/pipeline.pid"
    sleep 5
    wait_for "${3:-540}"
    ;;
pipeline) pipeline "$2" ;;
wait) wait_for "${2:-540}" ;;
*) echo "usage: $0 start BACKEND [WAIT_S] | wait [WAIT_S]" >&2; exit 2 ;;
esac
