// fuzz-pipeline: builtin.module(lamport-generate-kernels)

!mailbox = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @all_reduce(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                      %out: memref<?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.all_reduce %mailbox into %out
      {sum_order = #lamport.sum_order<rank_ascending>, pdl}
      : !mailbox, memref<?x8192xbf16>
  return
}
