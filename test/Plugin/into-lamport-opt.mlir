// RUN: %exit_status lamport-opt %s --load-dialect-plugin=%lamport_plugin 2>&1 | FileCheck %s --check-prefix=DIALECT
// RUN: %exit_status lamport-opt %s --load-pass-plugin=%lamport_plugin --lamport-generate-kernels 2>&1 | FileCheck %s --check-prefix=PASSES

// lamport-opt has the dialect and passes built in, a copy of its own: the
// plugin loaded into it registers nothing and says so, instead of MLIR
// aborting on a namespace or pass name registered twice, and the process
// ends with exit code 1 before it reads its input.

// DIALECT: error: LamportPlugin: this tool already has its own 'lamport' dialect
// DIALECT-SAME: a process cannot hold two copies: load the plugin into a tool without them, such as mlir-opt
// DIALECT-NOT: LLVM ERROR
// DIALECT-NOT: func.func
// DIALECT: exit 1

// PASSES: error: LamportPlugin: this tool already has its own lamport passes
// PASSES-SAME: a process cannot hold two copies
// PASSES-NOT: LLVM ERROR
// PASSES-NOT: func.func
// PASSES: exit 1

func.func private @f(!lamport.mailbox<tp = 2, capacity = 16, width = 8192>)
