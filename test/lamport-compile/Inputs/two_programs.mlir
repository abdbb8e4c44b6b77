// Two programs in one file: lamport-compile needs --program to choose.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @publish(%rows: memref<?x64xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<?x64xbf16>, !mb
  return
}

func.func @poll(%mb: !mb, %out: memref<2x?x64xbf16>) {
  lamport.poll_rows %mb into %out : !mb, memref<2x?x64xbf16>
  return
}
