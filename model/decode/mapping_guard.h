/* mapping_guard: keeps a shrinking file from killing memtop while it is
 * being read through a mapping.
 *
 * Touching a mapped page that lies past a file's new end (another process
 * truncated it) raises SIGBUS. While a guard is on, a SIGBUS inside the
 * guarded mapping maps zero pages over the vanished part and is noted:
 * the loader reads on, finds nonsense where the data was and fails through
 * its ordinary error path, so nothing leaks, and the caller reports that
 * the file changed. A SIGBUS anywhere else is left to the handler that was
 * there before. Each thread has its own guard (hosts load on several
 * threads at once, model/host_loader.h): the handler is installed while
 * any guard is on and finds the mapping among theirs.
 * Called by: load.c around a mapped load. Must not: guard anything but the
 * one mapping it was given. */
#ifndef MEMTOP_MAPPING_GUARD_H
#define MEMTOP_MAPPING_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Guards [base, base + size), a private read-only file mapping, until
 * this thread calls mapping_guard_end(). */
void mapping_guard_begin(const uint8_t *base, size_t size);

/* Restores the previous SIGBUS handler; true when part of the file
 * vanished while the guard was on. */
bool mapping_guard_end(void);

#endif
