#!/usr/bin/env bash
# Times aclnn_case_runner on whole case files -- e.g. ops-nn's own suites for the MSE loss family,
# which are not part of this repository -- with --jobs 1 and --jobs N (default: the CPUs), and
# prints each run's wall time, CPU time, peak memory and summary line.
#   bench/case_runner_suites.sh [-r RUNNER] [-j N] FILE...
# Example (ops-nn's MseLossGrad kernel table and MseLossBackward API list):
#   bench/case_runner_suites.sh ttk_kernel_mse_loss_grad_st.csv atk_aclnnMseLossBackward.json
set -euo pipefail
cd "$(dirname "$0")/.."
runner=build/tools/aclnn_case_runner
jobs=$(nproc)
while getopts "r:j:" opt; do
  case $opt in
    r) runner=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-r RUNNER] [-j N] FILE..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-r RUNNER] [-j N] FILE..." >&2; exit 2; }
[ -x "$runner" ] || { echo "$runner: not built (cmake --build build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }
report=$(mktemp)
trap 'rm -f "$report" "$report.time"' EXIT
echo "| --jobs | wall s | user s | sys s | peak RSS MiB | report |"
echo "|---|---|---|---|---|---|"
for j in 1 "$jobs"; do
  /usr/bin/time -f "%e %U %S %M" -o "$report.time" "$runner" --jobs "$j" "$@" >"$report" || true
  read -r wall user sys rss_kib <"$report.time"
  echo "| $j | $wall | $user | $sys | $((rss_kib / 1024)) | $(tail -n 1 "$report") |"
  [ "$j" = 1 ] && cp "$report" "$report.first"
done
if cmp -s "$report" "$report.first"; then echo "reports identical for --jobs 1 and $jobs"; else echo "REPORTS DIFFER"; fi
rm -f "$report.first"
