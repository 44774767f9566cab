/* splitmix64: the one random step of the project's generators and
 * property tests, so that what they write repeats from a seed on every
 * machine and never depends on libc's rand(). Header only; callers keep
 * their own state and their own helpers (below, range) around it. */
#ifndef MEMTOP_TESTS_SPLITMIX64_H
#define MEMTOP_TESTS_SPLITMIX64_H

#include <stdint.h>

/* The next value of the stream; advances *state. */
static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A value's hash: the first step of a stream seeded with it. */
static inline uint64_t splitmix64_mix(uint64_t value)
{
    return splitmix64_next(&value);
}

#endif
