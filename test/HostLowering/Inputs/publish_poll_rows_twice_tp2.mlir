// docs/examples/publish_poll_rows_tp2.mlir with its exchange made twice on
// the one mailbox in a step (the same rows, so `out` holds the same after
// either): a program of several polling images, each of which takes the
// polls' timeout as it loads, in the middle of a rank's call.

!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>

func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<2x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<2x?x8192xbf16>
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<2x?x8192xbf16>
  return
}
