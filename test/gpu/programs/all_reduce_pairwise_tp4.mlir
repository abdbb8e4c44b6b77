// The one-shot all-reduce at tp = 4 with the pairwise sum order
// ((p0 + p1) + (p2 + p3)), for the GPU checks of test/gpu/run.sh.

!mailbox = !lamport.mailbox<tp = 4, capacity = 16, width = 4096>

func.func @all_reduce_pairwise(%rows: memref<?x4096xbf16>, %mailbox: !mailbox,
                               %out: memref<?x4096xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x4096xbf16>, !mailbox
  lamport.all_reduce %mailbox into %out
      {sum_order = #lamport.sum_order<pairwise>, pdl}
      : !mailbox, memref<?x4096xbf16>
  return
}
