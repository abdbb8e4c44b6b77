// Not MLIR: lamport-compile must say where the parser stopped.
func.func @broken(%rows: memref<?x64xbf16>) {
  lamport.publish_rows %rows into
}
