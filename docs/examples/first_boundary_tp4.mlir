// The first boundary of docs/getting-started.md, at tp = 4: each rank
// publishes its partial rows [M, 2048] into slot [NEXT, rank] of every
// rank's mailbox, then reads the 4 slots of the ACTIVE stage, sums them in
// rank order into %out (the all-reduce), re-arms what it read and advances
// the stage.

!mailbox = !lamport.mailbox<tp = 4, capacity = 16, width = 2048>

func.func @first_boundary(%partial: memref<?x2048xbf16>, %mailbox: !mailbox,
                          %out: memref<?x2048xbf16>) {
  lamport.publish_rows %partial into %mailbox : memref<?x2048xbf16>, !mailbox
  lamport.all_reduce %mailbox into %out : !mailbox, memref<?x2048xbf16>
  return
}
