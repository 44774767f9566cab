/* memory_available: how many more bytes this process can likely have
 * before an allocation fails, so that gzip input is refused as too big
 * before memory runs out rather than failing halfway.
 *
 * Owns: reading the limits that bound it (the address-space and data
 * rlimits less what the process already maps, the kernel's MemAvailable,
 * a cgroup v2 memory.max less memory.current).
 * Called by: load.c, for the cap on inflated gzip data.
 * Must not: allocate much, or fail: what it cannot read does not bound. */
#ifndef MEMTOP_MEMORY_AVAILABLE_H
#define MEMTOP_MEMORY_AVAILABLE_H

#include <stdint.h>

/* The smallest of the bounds it can read; UINT64_MAX when it reads none. */
uint64_t memory_available(void);

#endif
