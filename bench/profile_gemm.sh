#!/usr/bin/env bash
#===- bench/profile_gemm.sh - Hardware counters of GEMM bundles (ncu) ----===#
#
# On the GPU machine, after bench/prepare_gemm.sh here (copy `bundles` and
# `third_party_cache` there): builds lamport-gemm-bench like bench/run_gemm.sh,
# then runs it under Nsight Compute once per bundle named on the command
# line (a name under bundles/gemm, or a glob of them), profiling the
# generated kernel's third launch (the first two are the correctness runs)
# with the clocks left alone and the caches not flushed, so a publishing
# variant's mailbox lines meet the L2 as they do in the timed replays.
# Prints one row per bundle: duration and the DRAM and L2 traffic, so a
# publishing variant can be set beside its plain twin. With --stalls, the
# duration, the share of it the SMs run a CTA, DRAM, L2 and SM throughput
# against their peaks, and where the warps wait: Nsight Compute's
# warp-state section, each stall reason's cycles per issued instruction,
# the largest five (the raw CSVs under $OUT/ncu where OUT is set). The
# kernel runs alone there, not in a graph under PDL.
#
#   bash bench/profile_gemm.sh [--stalls] NAME...
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NCCL_NVLS_ENABLE=0
source "$root/bench/build_gemm_bench.sh"
build_gemm_bench profile_gemm.sh || exit 2
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null |
  head -1)
if [ -z "$ncu" ]; then
  echo "profile_gemm.sh: no ncu on this machine"
  exit 2
fi
stalls=0
if [ "${1:-}" = --stalls ]; then
  stalls=1
  shift
fi
if [ "$stalls" = 1 ]; then
  [ -n "${OUT:-}" ] && mkdir -p "$OUT/ncu"
  for pattern in "$@"; do
    for bundle in "$root"/bundles/gemm/$pattern; do
      if [ -n "${OUT:-}" ]; then
        csv=$OUT/ncu/$(basename "$bundle").csv
      else
        csv=$(mktemp)
      fi
      "$ncu" --clock-control none --cache-control none \
        --kernel-name regex:gemm_publish --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --csv --page raw \
        "$build/bin/lamport-gemm-bench" "$bundle" >"$csv" 2>"$csv.err" || {
        tail -5 "$csv.err"
        echo "profile_gemm.sh: ncu failed on $bundle"
        continue
      }
      python3 - "$csv" "$(basename "$bundle")" <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, units, value = rows[0], rows[1], rows[2]
def get(name):
    return float(value[head.index(name)].replace(",", ""))
time = get("gpu__time_duration.sum") * {"nsecond": 1e-3, "ns": 1e-3,
    "usecond": 1, "us": 1, "msecond": 1e3, "ms": 1e3}[
    units[head.index("gpu__time_duration.sum")]]
def pct(prefix):
    return next((get(name) for name in head if name.startswith(prefix) and
                 "pct_of_peak_sustained" in name), float("nan"))
dram, l2, sm = pct("gpu__dram_throughput.avg"), pct("lts__throughput.avg"), \
    pct("sm__throughput.avg")
# The share of the kernel's time the SMs run a CTA (launch, ramp and tail
# are the rest; in a graph under PDL they overlap the neighbours).
active = 100 * get("sm__cycles_active.avg") / get("gpc__cycles_elapsed.avg")
marker = "issue_stalled_"
stalls = sorted(((get(name), name.split(marker)[1].split("_per_")[0])
                 for name in head if marker in name and
                 name.endswith("per_issue_active.ratio")), reverse=True)
print("%-52s %6.2f us  SMs active %3.0f%%  of peak: DRAM %3.0f%% L2 %3.0f%% "
      "SM %3.0f%%  stalls per issue: %s" % (
    sys.argv[2], time, active, dram, l2, sm,
    ", ".join("%s %.1f" % (reason, v) for v, reason in stalls[:5])))
EOF
      [ -n "${OUT:-}" ] || rm -f "$csv"
      rm -f "$csv.err"
    done
  done
  exit 0
fi
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum
metrics=$metrics,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
metrics=$metrics,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
table=$(mktemp)
printf '%-58s %9s %10s %10s %10s %10s %10s\n' bundle "time us" \
  "DRAM rd MB" "DRAM wr MB" "L2 wr MB" "L2 wr miss" "occupancy" >"$table"
for pattern in "$@"; do
  for bundle in "$root"/bundles/gemm/$pattern; do
    csv=$(mktemp)
    "$ncu" --clock-control none --cache-control none \
      --kernel-name regex:gemm_publish --launch-skip 2 --launch-count 1 \
      --metrics "$metrics" --csv --page raw \
      "$build/bin/lamport-gemm-bench" "$bundle" >"$csv" 2>"$csv.err" || {
      tail -5 "$csv.err"
      echo "profile_gemm.sh: ncu failed on $bundle"
      continue
    }
    python3 - "$csv" "$(basename "$bundle")" >>"$table" <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, units, value = rows[0], rows[1], rows[2]
get = lambda name: float(value[head.index(name)].replace(",", ""))
def scaled(name, to):
    unit = units[head.index(name)]
    factors = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
               "nsecond": 1e-3, "ns": 1e-3, "usecond": 1, "us": 1,
               "msecond": 1e3, "ms": 1e3, "sector": 32, "Ksector": 32e3,
               "Msector": 32e6, "": 1}
    if unit not in factors:
        sys.exit("profile_gemm.sh: ncu reported %s in %r" % (name, unit))
    factor = factors[unit]
    return get(name) * factor / to
print("%-58s %9.2f %10.2f %10.2f %10.2f %10.2f %9.0f%%" % (
    sys.argv[2], scaled("gpu__time_duration.sum", 1),
    scaled("dram__bytes_read.sum", 1e6), scaled("dram__bytes_write.sum", 1e6),
    scaled("lts__t_sectors_op_write.sum", 1e6),
    scaled("lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum", 1e6),
    get("sm__warps_active.avg.pct_of_peak_sustained_active")))
EOF
    rm -f "$csv" "$csv.err"
  done
done
cat "$table"
