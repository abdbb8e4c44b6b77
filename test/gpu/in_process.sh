#!/usr/bin/env bash
#===- test/gpu/in_process.sh - A TP group in one process, one H200 -------===#
#
# Two ways a framework runs every rank of a TP group in one process, on the
# real driver (the lit tests run them over the host-only driver):
#   host-lowered  the publish/poll program lowered by upstream's passes
#                 (bundles/in_process/host_lowered.o) linked with the C main
#                 of test/HostLowering and the runtime's C libraries: steps
#                 of 1, 5, 16, 3 tokens bit for bit, the refusals, a rank
#                 that never calls the program (its peer traps), and the
#                 polls' timeout set before the images load, after, and
#                 restored (lamportRuntimeSetPollTimeout); the program with
#                 its exchange twice a step (host_lowered_twice.o: several
#                 polling images), with and without the timeout set before
#                 they load;
#   python        lamport.Runtime over the compiled bundle
#                 (test/gpu/runtime_timeout.py, one case a process): steps
#                 with the timeout set and restored, traps after 250 ms and
#                 after the compiled second, and the timeout refused inside
#                 a torch CUDA graph capture of each capture mode.
# Prints a short table last; logs go to build-gpu/in_process, and where $OUT
# is set, summary.txt and logs.tar.gz go there. ONLY (an extended regular
# expression) runs the checks whose "PROGRAM MODE" or "python CASE" it
# matches, e.g. ONLY='twice|capture'.
#
#   bash test/gpu/prepare_in_process.sh   (here, with MLIR)
#   bash test/gpu/in_process.sh           (there, with bundles/ and
#                                          third_party_cache/)
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0
build=${BUILD_DIR:-$root/build-gpu}
inputs=$root/bundles/in_process
out=$build/in_process
rm -rf "$out" && mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failures=0
note() { printf '%-19s %-20s %-5s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

for input in "$inputs/host_lowered.o" "$inputs/publish_poll_tp2/manifest.json"; do
  [ -e "$input" ] || {
    echo "in_process.sh: no $input (run test/gpu/prepare_in_process.sh)"
    exit 2
  }
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
source "$root/test/gpu/build_runtime.sh"
build_runtime in_process.sh "$build" "$out/build.log" LamportRuntimeC \
  LamportCudaRuntime || exit 2

echo "== host-lowered programs"
# link OBJECT EXECUTABLE: the object with the C main and the runtime.
link() {
  cc -std=c11 -Wall -Werror \
    "$root/test/HostLowering/Inputs/publish_poll_rows_main.c" "$1" \
    -I "$root/include" -L "$build/lib" -lLamportCudaRuntime \
    -lLamportRuntimeC -Wl,-rpath,"$build/lib" -o "$2" >>"$out/link.log" 2>&1 ||
    { note host-lowered "link $(basename "$1")" FAIL "see link.log"
      failures=$((failures + 1)); }
}
link "$inputs/host_lowered.o" "$out/host_lowered"
link "$inputs/host_lowered_twice.o" "$out/host_lowered_twice"
program=$out/host_lowered

# lowered MODE STATUS PATTERN...: runs $program in MODE; its exit status
# must be STATUS and every extended regular expression must match its output.
lowered() {
  local mode=$1 status=$2 log start=$SECONDS
  shift 2
  local name=$(basename "$program")
  [[ "$name $mode" =~ ${ONLY:-.} ]] || return 0
  log=$out/${name}_$mode.log
  [ -x "$program" ] || { note "$name" "$mode" FAIL "not linked"; return; }
  timeout 60 "$program" "$mode" >"$log" 2>&1
  local got=$? missing=""
  [ "$got" = "$status" ] || missing="exit status $got, expected $status; "
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$log" || missing+="no '$pattern'; "
  done
  if [ -z "$missing" ]; then
    note "$name" "$mode" PASS \
      "[$((SECONDS - start)) s] $(grep -Eo '(after [0-9.]+ ms \(timeout [0-9.]+ ms\)|step 3: .*)' "$log" | head -1)"
  else
    note "$name" "$mode" FAIL "${missing:0:300}"
    failures=$((failures + 1))
    tail -5 "$log"
  fi
}
timed_out="rank 0 timed out polling mailbox 'boundary' \(id 0\): stage [01], slot 1 \(data of rank 1 never came\)"
lowered steps 0 "^step 0: 1 token" "^step 1: 5 token" "^step 2: 16 token" \
  "^step 3: 3 token\(s\): every rank's out holds every rank's rows"
lowered outside-step 0 "kernel 'publish_rows_0' is launched outside a step" \
  "^end of step: status 1"
lowered wrong-mailbox 0 "to a kernel compiled for a mailbox <tp = 2, capacity = 16, width = 8192>" \
  "^end of step: status 1"
lowered missing-rank 0 "$timed_out.*after (1[0-4][0-9][0-9]|1000)\.[0-9]+ ms \(timeout 1000\.000 ms\)" \
  "^end of step: status 3"
for mode in timeout-before-load timeout-after-load; do
  lowered "$mode" 0 "$timed_out.*after (2[5-9][0-9]|3[0-9][0-9])\.[0-9]+ ms \(timeout 250\.000 ms\)" \
    "^end of step: status 3"
done
lowered timeout-restored 0 "$timed_out.*\(timeout 1000\.000 ms\)" \
  "^end of step: status 3"
lowered api-errors 0 "^error: setting the poll timeout: a poll timeout of 18446744073709551615 ns" \
  "^error: the runtime handle is null"
steps_done="^step 3: 3 token\(s\): every rank's out holds every rank's rows"
lowered timeout-then-steps 0 "$steps_done"
program=$out/host_lowered_twice
lowered steps 0 "$steps_done"
lowered timeout-then-steps 0 "$steps_done"

echo "== lamport.Runtime (python)"
for case in steps trap-250ms trap-compiled capture-global capture-thread_local \
  capture-relaxed; do
  [[ "python $case" =~ ${ONLY:-.} ]] || continue
  log=$out/python_$case.log start=$SECONDS
  LAMPORT_RUNTIME_LIBRARY=$build/lib/libLamportRuntimeC.so timeout 120 \
    python3 "$root/test/gpu/runtime_timeout.py" "$case" \
    "$inputs/publish_poll_tp2" >"$log" 2>&1
  status=$?
  line=$(grep -E "^$case: (PASS|FAIL)" "$log" | tail -1)
  if [ $status = 0 ] && [[ $line == "$case: PASS"* ]]; then
    note python "$case" PASS "[$((SECONDS - start)) s] ${line#*PASS }"
  else
    note python "$case" FAIL "exit $status: ${line:-$(tail -2 "$log" | tr '\n' ' ')}"
    failures=$((failures + 1))
  fi
done

echo "== summary ($failures failure(s))"
if [ -n "${OUT:-}" ]; then
  cp "$summary" "$OUT/summary.txt"
  tar -C "$out" -czf "$OUT/logs.tar.gz" .
fi
cat "$summary"
exit $((failures > 0))
