# Sourced by the benchmark scripts: sets top (the checkout), B and F (copies
# of build/fastcp-bench and build/fastcp, so that a rebuild during a run
# changes nothing) and out (the results directory, $1 or build/bench-results).
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d /tmp/fcp-bench-bin.XXXXXX)
cp "$top/build/fastcp-bench" "$top/build/fastcp" "$bin/"
B=$bin/fastcp-bench F=$bin/fastcp
out=${1:-$top/build/bench-results}
