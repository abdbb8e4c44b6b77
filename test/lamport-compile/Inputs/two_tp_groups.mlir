// Two TP groups in one program: mailboxes of tp 8 and tp 4.
!tp8 = !lamport.mailbox<tp = 8, capacity = 16, width = 64>
!tp4 = !lamport.mailbox<tp = 4, capacity = 16, width = 64>

func.func @two_tp_groups(%rows: memref<?x64xbf16>, %a: !tp8, %b: !tp4,
                         %sum: memref<?x64xbf16>, %other: memref<?x64xbf16>) {
  lamport.publish_rows %rows into %a : memref<?x64xbf16>, !tp8
  lamport.all_reduce %a into %sum : !tp8, memref<?x64xbf16>
  lamport.publish_rows %rows into %b : memref<?x64xbf16>, !tp4
  lamport.all_reduce %b into %other : !tp4, memref<?x64xbf16>
  return
}
