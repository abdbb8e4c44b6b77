// A program argument a runtime cannot pass: a scalar.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @scalar(%rows: memref<?x64xbf16>, %mb: !mb, %scale: f32,
                  %out: memref<?x64xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.all_reduce %mb into %out : !mb, memref<?x64xbf16>
  return
}
