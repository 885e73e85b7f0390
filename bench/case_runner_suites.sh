#!/usr/bin/env bash
# Times aclnn_case_runner on whole case files -- e.g. ops-nn's own suites for the MSE loss family,
# which are not part of this repository -- with --jobs 1 and --jobs N (default: the CPUs), and
# prints each run's wall time, CPU time, peak memory and summary line (with the SKIP count).
#   bench/case_runner_suites.sh [-r RUNNER] [-j N] [-e] FILE...
# -e: each file alone first, then all of them together.
# Examples (ops-nn's MseLossGrad suites; the forward's, each alone and all five together):
#   bench/case_runner_suites.sh ttk_kernel_mse_loss_grad_st.csv atk_aclnnMseLossBackward.json
#   bench/case_runner_suites.sh -e ttk_kernel_mse_loss_st.csv atk_aclnnMseLoss.json atk_aclnnMseLossOut.json
set -euo pipefail
cd "$(dirname "$0")/.."
runner=build/tools/aclnn_case_runner
jobs=$(nproc)
each=0
usage() {
  echo "usage: $0 [-r RUNNER] [-j N] [-e] FILE..." >&2
  exit 2
}
while getopts "r:j:e" opt; do
  case $opt in
    r) runner=$OPTARG ;;
    j) jobs=$OPTARG ;;
    e) each=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
[ -x "$runner" ] || { echo "$runner: not built (cmake --build build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }
report=$(mktemp)
trap 'rm -f "$report" "$report.time" "$report.first"' EXIT

# measure FILE...: one row per --jobs value; then whether the reports agree.
measure() {
  local name
  if [ $# -eq 1 ]; then name=$(basename "$1"); else name="all $# files"; fi
  for j in 1 "$jobs"; do
    /usr/bin/time -f "%e %U %S %M" -o "$report.time" "$runner" --jobs "$j" "$@" >"$report" || true
    read -r wall user sys rss_kib <"$report.time"
    local skips
    skips=$(grep -c '^SKIP ' "$report" || true)
    echo "| $name | $j | $wall | $user | $sys | $((rss_kib / 1024)) | $(tail -n 1 "$report") | $skips |"
    [ "$j" = 1 ] && cp "$report" "$report.first"
  done
  if ! cmp -s "$report" "$report.first"; then
    echo "| $name: REPORTS DIFFER for --jobs 1 and $jobs (a large case skipped under one of them?) |"
    diff "$report.first" "$report" | grep '^[<>] SKIP' || true
  fi
}

echo "| files | --jobs | wall s | user s | sys s | peak RSS MiB | report | SKIP lines |"
echo "|---|---|---|---|---|---|---|---|"
if [ "$each" = 1 ] && [ $# -gt 1 ]; then
  for file in "$@"; do measure "$file"; done
fi
measure "$@"
