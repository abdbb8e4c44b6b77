// fuzz-options: program=publish_poll_rows timeout-ns=1

!mailbox = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
!mailbox4 = !lamport.mailbox<tp = 4, capacity = 16, width = 2048>

func.func @publish_poll_rows(%rows: memref<?x8192xbf16>, %mailbox: !mailbox,
                             %out: memref<2x?x8192xbf16>) {
  lamport.publish_rows %rows into %mailbox {pdl}
      : memref<?x8192xbf16>, !mailbox
  lamport.poll_rows %mailbox into %out {pdl}
      : !mailbox, memref<2x?x8192xbf16>
  return
}


func.func @first_boundary(%partial: memref<?x2048xbf16>, %mailbox: !mailbox4,
                          %out: memref<?x2048xbf16>) {
  lamport.publish_rows %partial into %mailbox : memref<?x2048xbf16>, !mailbox4
  lamport.all_reduce %mailbox into %out : !mailbox4, memref<?x2048xbf16>
  return
}
