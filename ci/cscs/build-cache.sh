# Source this in a CSCS-CI job: one build cache per image, lock and week, as icon4py's
# .cscs-ci/scripts/gt4py-cache.sh keeps gt4py's. ICONBENCH_CACHE_DIR becomes
#   $ICONBENCH_CACHE_BASE_DIR/iconbench/cache/image-<hash>-lock-<hash>-<year>-<week>
# (ICONBENCH_IMAGE: the image the job runs; uv.lock: the image's). Caches not touched for 7
# days are removed first (another job may remove them at the same time: its failures ignored).
# Within one cache, builds are keyed by stack and CUDA as everywhere (iconbench.stacks.identity).
: "${ICONBENCH_CACHE_BASE_DIR:?ICONBENCH_CACHE_BASE_DIR: the mounted directory the caches live in}"
: "${ICONBENCH_IMAGE:?ICONBENCH_IMAGE: the image of the job}"
iconbench_caches="$ICONBENCH_CACHE_BASE_DIR/iconbench/cache"
mkdir -p "$iconbench_caches"
find "$iconbench_caches" -mindepth 1 -maxdepth 1 -type d -mtime +7 -exec rm -rf {} + 2>/dev/null || true
iconbench_image_hash="$(printf %s "$ICONBENCH_IMAGE" | sha256sum | cut -c1-16)"
iconbench_lock_hash="$(sha256sum "${ICONBENCH_ROOT:-/iconbench}/uv.lock" | cut -c1-16)"
iconbench_week="$(date -u +%G-%V)"
export ICONBENCH_CACHE_DIR="$iconbench_caches/image-$iconbench_image_hash-lock-$iconbench_lock_hash-$iconbench_week"
mkdir -p "$ICONBENCH_CACHE_DIR"
touch "$ICONBENCH_CACHE_DIR"
echo "build cache: $ICONBENCH_CACHE_DIR" >&2
