// Two programs in one file: lamport-compile needs --program to choose.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @round_trip(%rows: memref<?x64xbf16>, %mb: !mb,
                      %out: memref<2x?x64xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.poll_rows %mb into %out : !mb, memref<2x?x64xbf16>
  return
}

func.func @reduce(%rows: memref<?x64xbf16>, %mb: !mb,
                  %out: memref<?x64xbf16>) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  lamport.all_reduce %mb into %out : !mb, memref<?x64xbf16>
  return
}
