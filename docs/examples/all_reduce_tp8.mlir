// The decode boundary's all-reduce at tp = 8, 1..16 tokens x 8192 BF16: the
// main job of scripts/run.sh and a GPU check of test/gpu/run.sh. Each rank
// publishes its partial rows [M, 8192], then sums the 8 slots of
// the ACTIVE stage in FP32 in rank order, rounds to BF16 into %out, re-arms
// and advances NEXT. lamport-run checks %out against the same sum on the
// host.

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
