#===- test/gpu/prepare_common.sh - What the bundle-preparing scripts share ===#
#
# Sourced, after they set `root`, by the scripts that compile bundles where
# MLIR is for a run on a GPU machine (test/gpu/prepare*.sh,
# bench/prepare_boundary_peer.sh):
#   find_compile CALLER [PATH]  sets `compile` to PATH or build/bin's
#                               lamport-compile; exits 2 where it is not an
#                               executable, naming CALLER;
#   cache_json_headers CALLER   copies nlohmann/json's headers into
#                               third_party_cache/ (the GPU machines have no
#                               package manager; the runtime needs them).
#
#===----------------------------------------------------------------------===#

find_compile() {
  compile=${2:-$root/build/bin/lamport-compile}
  if [ ! -x "$compile" ]; then
    echo "$1: no lamport-compile at $compile (build it, or pass its path)"
    exit 2
  fi
}

cache_json_headers() {
  if [ ! -d /usr/include/nlohmann ]; then
    echo "$1: no /usr/include/nlohmann (install nlohmann-json3-dev:" \
      "scripts/setup.sh)"
    exit 2
  fi
  rm -rf "$root/third_party_cache/nlohmann"
  mkdir -p "$root/third_party_cache"
  cp -r /usr/include/nlohmann "$root/third_party_cache/"
}
