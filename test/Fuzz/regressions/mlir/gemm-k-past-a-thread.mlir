// A K so deep that every tactic leaves a thread thousands of 32-wide chunks
// to hold: lamport-select-tactics took kw = 65536 and LLVM's code generation
// ran for minutes. The launch rules now refuse more than 128 chunks a thread,
// so the shape is one error naming the rule for each kernel family.
func.func @deep_k(%x: memref<?x16777216xbf16>, %w: memref<4096x16777216xbf16>,
                  %y: memref<?x4096xbf16>) {
  lamport.gemm_publish %x, %w into %y {pdl}
      : memref<?x16777216xbf16>, memref<4096x16777216xbf16>, memref<?x4096xbf16>
  return
}
