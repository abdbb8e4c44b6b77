// Valid IR with no program-level lamport op: nothing to compile.
func.func @plain(%a: memref<4xf32>) {
  return
}
