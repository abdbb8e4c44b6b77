// RUN: not %mlir-opt %s 2>&1 | FileCheck %s --check-prefix=STOCK
// RUN: not %mlir-opt %s --load-dialect-plugin=%lamport_plugin --pass-pipeline='builtin.module(lamport-generate-kernels)' 2>&1 | FileCheck %s --check-prefix=NO-PASSES
// RUN: not %mlir-opt %s --load-dialect-plugin=%t.missing%shlibext 2>&1 | FileCheck %s --check-prefix=MISSING

// Without the plugin the stock mlir-opt knows nothing of lamport; with the
// dialect plugin alone it parses lamport IR but has none of its passes
// (they come with --load-pass-plugin); a plugin path that does not exist is
// an error, not a crash.

// STOCK: error: `!"lamport"<"mailbox<tp = 2, capacity = 16, width = 8192>">` type created with unregistered dialect
// NO-PASSES: error: 'lamport-generate-kernels' does not refer to a registered pass or pass pipeline
// MISSING: Failed to load dialect plugin from '{{.*}}.missing{{.*}}'

func.func private @f(!lamport.mailbox<tp = 2, capacity = 16, width = 8192>)

// Loading the library more than once registers everything once: no
// "already registered" failure.
// RUN: %mlir_opt_lamport --load-dialect-plugin=%lamport_plugin --load-pass-plugin=%lamport_plugin %s --pass-pipeline='builtin.module(lamport-generate-kernels)' | FileCheck %s --check-prefix=TWICE
// TWICE: !mailbox_tp2_c16_w8192 = !lamport.mailbox<tp = 2, capacity = 16, width = 8192>
// TWICE: func.func private @f(!mailbox_tp2_c16_w8192)
