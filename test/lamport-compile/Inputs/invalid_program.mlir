// Parses, but the verifier rejects it: the rows are wider than the mailbox.
!mb = !lamport.mailbox<tp = 2, capacity = 4, width = 64>

func.func @too_wide(%rows: memref<?x128xbf16>, %mb: !mb) {
  lamport.publish_rows %rows into %mb : memref<?x128xbf16>, !mb
  return
}
