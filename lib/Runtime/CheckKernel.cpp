//===- CheckKernel.cpp - The word-compare kernel, as PTX ------------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// lamport-run checks every step of long runs on the GPU: this kernel
// compares an output with its expected bytes word by word, counts the words
// that differ and records the first one it sees. It is hand-written PTX,
// JIT-compiled by the driver at load, so the runtime needs no CUDA compiler
// at build time and no MLIR.
//
//   lamport_check_words(u32 *out, u32 *expected, u64 words,
//                       CheckResult *result, u32 tag)
//   result: {u32 mismatches, u32 tag, u64 word, u32 got, u32 expected}
//
//===----------------------------------------------------------------------===//

#include "CheckKernel.h"

namespace lamport {
namespace runtime {

const char *const kCheckKernelName = "lamport_check_words";

const char *const kCheckKernelPtx = R"PTX(
.version 7.8
.target sm_70
.address_size 64

.visible .entry lamport_check_words(
    .param .u64 out,
    .param .u64 expected,
    .param .u64 words,
    .param .u64 result,
    .param .u32 tag)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<16>;

    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [expected];
    ld.param.u64 %rd3, [words];
    ld.param.u64 %rd4, [result];
    ld.param.u32 %r9, [tag];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd4, %rd4;
    // i = ctaid * ntid + tid, stepping by the whole grid.
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.u64 %rd5, %rd5, %rd6;
    mul.wide.u32 %rd7, %r4, %r2;
LOOP:
    setp.ge.u64 %p1, %rd5, %rd3;
    @%p1 bra DONE;
    shl.b64 %rd8, %rd5, 2;
    add.u64 %rd9, %rd1, %rd8;
    add.u64 %rd10, %rd2, %rd8;
    ld.global.u32 %r5, [%rd9];
    ld.global.u32 %r6, [%rd10];
    setp.eq.u32 %p2, %r5, %r6;
    @%p2 bra NEXT;
    // The thread that counts the first mismatch records it.
    atom.global.add.u32 %r7, [%rd4], 1;
    setp.ne.u32 %p3, %r7, 0;
    @%p3 bra NEXT;
    st.global.u32 [%rd4+4], %r9;
    st.global.u64 [%rd4+8], %rd5;
    st.global.u32 [%rd4+16], %r5;
    st.global.u32 [%rd4+20], %r6;
NEXT:
    add.u64 %rd5, %rd5, %rd7;
    bra LOOP;
DONE:
    ret;
}
)PTX";

} // namespace runtime
} // namespace lamport
