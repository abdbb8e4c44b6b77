// RUN: lamport-opt %s --load-dialect-plugin=%lamport_plugin 2>&1 | FileCheck %s --check-prefix=DIALECT
// RUN: lamport-opt %s --load-pass-plugin=%lamport_plugin --lamport-generate-kernels 2>&1 | FileCheck %s --check-prefix=PASSES

// lamport-opt has the dialect and passes built in, a copy of its own: the
// plugin loaded into it registers nothing and says so, instead of MLIR
// aborting on a namespace or pass name registered twice. lamport-opt goes on
// with its own dialect and passes (the commands above exit with 0).

// DIALECT: error: LamportPlugin: this tool already has its own 'lamport' dialect
// DIALECT-SAME: the plugin's dialect is not registered
// DIALECT-SAME: Request ignored.
// DIALECT-NOT: LLVM ERROR
// DIALECT: !mailbox_tp2_c16_w8192 = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
// DIALECT: func.func private @f(!mailbox_tp2_c16_w8192)

// PASSES: error: LamportPlugin: this tool already has its own lamport passes
// PASSES-SAME: the plugin's passes are not registered
// PASSES-NOT: LLVM ERROR
// PASSES: !mailbox_tp2_c16_w8192 = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
// PASSES: func.func private @f(!mailbox_tp2_c16_w8192)

func.func private @f(!lamport.mailbox<tp = 2, capacity = 16, width = 8192>)
