//===- reference_kernels.cu - Hand-written kernels of the bundle ABI ------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// CUDA C++ kernels that follow docs/bundle.md's kernel ABI exactly: the
// mailbox descriptor by value, the timeout record, the stage words. They
// are not the product (the compiler generates those); test/gpu/run.sh builds
// them into a "reference bundle" so the runtime and lamport-run are checked
// on the GPU on their own, and a failure of a compiled bundle can be told
// apart from a failure of the runtime.
//
// Built by make_bundle.py with -DTP=.. -DCAPACITY=.. -DWIDTH=..
// -DTIMEOUT_NS=.., one cubin per configuration:
//   publish_rows(mailbox, rows [m, W], m)
//   poll_rows(mailbox, out [TP, m, W], m)
//   all_reduce(mailbox, out [m, W], m)   FP32 rank-ascending sum, BF16 RNE
//
//===----------------------------------------------------------------------===//

#include <cuda_bf16.h>
#include <stdint.h>

#ifndef TP
#error "define TP, CAPACITY, WIDTH and TIMEOUT_NS"
#endif

/// The descriptor, passed by value: 40 + 8 * TP bytes, 8-byte aligned.
struct MailboxDescriptor {
  uint64_t local;
  uint64_t multicast;
  uint64_t stage;
  uint64_t diagnostics;
  int32_t rank;
  int32_t mailboxId;
  uint64_t peers[TP];
};
static_assert(sizeof(MailboxDescriptor) == 40 + 8 * TP, "bundle.md layout");

/// The 48-byte timeout record in host-mapped memory.
struct TimeoutRecord {
  uint32_t claimed;
  int32_t rank, mailboxId, stage, slot, row, column;
  uint32_t block;
  uint64_t elapsedNs, timeoutNs;
};

constexpr int kFragmentsPerRow = WIDTH / 8;

__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint4 loadVolatile(const void *p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void storeVolatile(void *p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ bool hasSentinel(uint32_t w) {
  return (w & 0xFFFFu) == 0x8000u || (w >> 16) == 0x8000u;
}

__device__ __forceinline__ bool hasSentinel(uint4 v) {
  return hasSentinel(v.x) || hasSentinel(v.y) || hasSentinel(v.z) ||
         hasSentinel(v.w);
}

__device__ __forceinline__ uint32_t canonicalize(uint32_t w) {
  if ((w & 0xFFFFu) == 0x8000u)
    w &= 0xFFFF0000u;
  if ((w >> 16) == 0x8000u)
    w &= 0x0000FFFFu;
  return w;
}

/// Byte offset of [stage, slot, row, col] in a copy.
__device__ __forceinline__ uint64_t offsetOf(int stage, int slot, int row,
                                             int col) {
  return 2ull *
         ((((uint64_t)stage * TP + slot) * CAPACITY + row) * WIDTH + col);
}

/// Polls one fragment of this rank's copy until no lane is the sentinel;
/// traps after TIMEOUT_NS, leaving the record first.
__device__ uint4 pollFragment(const MailboxDescriptor &mb, int stage, int slot,
                              int row, int col) {
  const char *p = (const char *)mb.local + offsetOf(stage, slot, row, col);
  uint4 v = loadVolatile(p);
  uint64_t firstMiss = 0;
  while (hasSentinel(v)) {
    uint64_t now = globalTimer();
    if (!firstMiss) {
      firstMiss = now;
    } else if (now - firstMiss > TIMEOUT_NS) {
      TimeoutRecord *record = (TimeoutRecord *)mb.diagnostics;
      if (record && atomicCAS(&record->claimed, 0u, 1u) == 0u) {
        record->rank = mb.rank;
        record->mailboxId = mb.mailboxId;
        record->stage = stage;
        record->slot = slot;
        record->row = row;
        record->column = col;
        record->block =
            blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        record->elapsedNs = now - firstMiss;
        record->timeoutNs = TIMEOUT_NS;
      }
      __threadfence_system();
      asm volatile("trap;");
    }
    v = loadVolatile(p);
  }
  return v;
}

__device__ __forceinline__ void rearm(const MailboxDescriptor &mb, int stage,
                                      int slot, int row, int col) {
  uint4 sentinel =
      make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);
  storeVolatile((char *)mb.local + offsetOf(stage, slot, row, col), sentinel);
}

__device__ __forceinline__ void waitForPrevious() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

extern "C" __global__ void publish_rows(MailboxDescriptor mb, const uint4 *rows,
                                        int m) {
  waitForPrevious();
  volatile int32_t *words = (volatile int32_t *)mb.stage;
  int stage = words[1]; // NEXT
  int items = m * kFragmentsPerRow;
  for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < items;
       item += gridDim.x * blockDim.x) {
    int row = item / kFragmentsPerRow;
    int col = (item % kFragmentsPerRow) * 8;
    uint4 v = rows[item];
    v = make_uint4(canonicalize(v.x), canonicalize(v.y), canonicalize(v.z),
                   canonicalize(v.w));
    for (int q = 0; q < TP; ++q)
      storeVolatile((char *)mb.peers[q] + offsetOf(stage, mb.rank, row, col),
                    v);
  }
  __threadfence_system();
  if (blockIdx.x == 0 && threadIdx.x == 0)
    words[0] = stage; // ACTIVE
}

extern "C" __global__ void poll_rows(MailboxDescriptor mb, uint4 *out, int m) {
  waitForPrevious();
  volatile int32_t *words = (volatile int32_t *)mb.stage;
  int stage = words[0]; // ACTIVE
  int items = m * kFragmentsPerRow;
  for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < items;
       item += gridDim.x * blockDim.x) {
    int row = item / kFragmentsPerRow;
    int col = (item % kFragmentsPerRow) * 8;
    for (int slot = 0; slot < TP; ++slot) {
      uint4 v = pollFragment(mb, stage, slot, row, col);
      out[(slot * m + row) * kFragmentsPerRow + col / 8] = v;
      rearm(mb, stage, slot, row, col);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    words[1] = (stage + 1) % 3; // NEXT
}

extern "C" __global__ void all_reduce(MailboxDescriptor mb, uint4 *out, int m) {
  waitForPrevious();
  volatile int32_t *words = (volatile int32_t *)mb.stage;
  int stage = words[0];
  int items = m * kFragmentsPerRow;
  for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < items;
       item += gridDim.x * blockDim.x) {
    int row = item / kFragmentsPerRow;
    int col = (item % kFragmentsPerRow) * 8;
    float sum[8];
    for (int slot = 0; slot < TP; ++slot) {
      uint4 v = pollFragment(mb, stage, slot, row, col);
      uint32_t w[4] = {v.x, v.y, v.z, v.w};
      for (int i = 0; i < 8; ++i) {
        float x = __uint_as_float((w[i / 2] >> (16 * (i % 2))) << 16);
        sum[i] = slot == 0 ? x : sum[i] + x; // rank-ascending
      }
      rearm(mb, stage, slot, row, col);
    }
    uint32_t w[4];
    for (int i = 0; i < 4; ++i) {
      uint32_t lo = __bfloat16_as_ushort(__float2bfloat16_rn(sum[2 * i]));
      uint32_t hi = __bfloat16_as_ushort(__float2bfloat16_rn(sum[2 * i + 1]));
      w[i] = lo | (hi << 16);
    }
    out[item] = make_uint4(w[0], w[1], w[2], w[3]);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    words[1] = (stage + 1) % 3;
}
