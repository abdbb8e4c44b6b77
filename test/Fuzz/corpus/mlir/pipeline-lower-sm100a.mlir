// fuzz-pipeline: builtin.module(lamport-generate-kernels,lamport-lower-to-nvvm{chip=sm_100a transport=multicast timeout-ns=1000 opt-level=1})

!mailbox = !lamport.mailbox<tp = 4, capacity = 16, width = 8192>

func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<4x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<4x?x8192xbf16>
  return
}
