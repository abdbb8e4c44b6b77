#!/usr/bin/env python3
"""Checks the sentinel-lane formula of LamportToNVVM/Fragment.cpp over every
BF16 bit pattern, in both halves of a 32-bit word and next to every kind of
neighbour (a carry must never cross lanes):

  lanes(w) = w & 0x80008000 & ~((w & 0x7fff7fff) + 0x7fff7fff)

has bit 15 of exactly the lanes equal to 0x8000, and w ^ lanes(w) turns
those lanes into 0x0000 and keeps every other bit.
"""
M = 0xFFFFFFFF


def lanes(w):
    return w & 0x80008000 & (~(((w & 0x7FFF7FFF) + 0x7FFF7FFF) & M) & M)


neighbours = [0x0000, 0x8000, 0x7FFF, 0xFFFF, 0x7F80, 0xFFC1, 0x0001, 0x8001]
for lane in range(1 << 16):
    for other in neighbours:
        for w, shift in ((lane | other << 16, 0), (other | lane << 16, 16)):
            expected = 0
            for s in (0, 16):
                if (w >> s) & 0xFFFF == 0x8000:
                    expected |= 0x8000 << s
            got = lanes(w)
            assert got == expected, hex(w)
            cleared = w ^ got
            for s in (0, 16):
                before, after = (w >> s) & 0xFFFF, (cleared >> s) & 0xFFFF
                assert after == (0 if before == 0x8000 else before), hex(w)
print("sentinel lanes: exact")
