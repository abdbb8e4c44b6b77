// fuzz-pipeline: builtin.module(lamport-generate-kernels,lamport-lower-to-nvvm{chip=})
// The plain mailbox round trip at tp = 2: each rank publishes its rows
// [M, 8192] into slot [NEXT, rank] of every rank's copy, then reads back all
// 2 slots of the ACTIVE stage, re-arms them and advances NEXT. Every rank's
// %out ends up holding the same [2, M, 8192] rows, slot r holding rank r's:
// what a test of a transport compares against a host reference.
//
// Steps follow each other without a barrier: the next step publishes into
// the next of the three generations, never into the one a slower rank may
// still be reading and re-arming.

!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>

func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<2x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<2x?x8192xbf16>
  return
}
