// A program with an op lamport-generate-kernels has no kernel family for.
!columns = !lamport.mailbox<tp = 2, capacity = 4, width = 32>

func.func @gather(%y: memref<?x32xbf16>, %mb: !columns,
                  %out: memref<?x64xbf16>) {
  lamport.publish_rows %y into %mb : memref<?x32xbf16>, !columns
  lamport.all_gather %mb into %out : !columns, memref<?x64xbf16>
  return
}
