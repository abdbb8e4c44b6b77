"""Op builders, one module per dialect, as upstream's mlir.dialects:
`func` (FuncOp, ReturnOp) and `lamport` (the program-level ops, the mailbox
type and the tactic attribute)."""
