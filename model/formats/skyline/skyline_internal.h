/* load_skyline: Skyline's memory report, an SQLite database that
 * `skyline memory --output FILE entry.py` writes (the spec:
 * shared/spec/other-formats.md section 5). Its rows are the weights (each
 * with its gradient's size) and the activations of one training
 * iteration, each with the stack of frames in the user's code that made
 * it; misc_sizes holds the peak. There is no time anywhere in it.
 *
 * What it becomes: one allocator, "cuda" (Skyline measures the memory
 * torch.cuda allocated on one GPU), with no timeline (TIMELINE_NONE), a
 * summary with the peak and the tracked totals (struct tracked_memory),
 * and one row per weight, per non-zero gradient and per activation
 * (origin ROW_FROM_ENTRY, with kind, location and stack).
 *
 * This header is shared by load_skyline.c (the format row, opening the
 * file read-only, telling a report from another database) and
 * load_skyline_entries.c (the rows and totals); nothing else includes it:
 * the rest of memtop reaches the format through its row in the format
 * table. Must not: write to the user's file or create anything beside it
 * (-journal, -wal, -shm), nor run any SQL but the SELECTs and PRAGMAs
 * that read. */
#ifndef MEMTOP_LOAD_SKYLINE_H
#define MEMTOP_LOAD_SKYLINE_H

#include <sqlite3.h>

#include "model/load.h"
#include "model/profile_builder.h"

/* The allocator's memory id. */
#define SKYLINE_ALLOCATOR_ID "cuda"

/* Reads every entry of the open report into allocator `index` of the
 * builder, and the totals into *tracked (whose peak-dependent part,
 * untracked_bytes, the caller computes). */
enum load_status skyline_read_entries(sqlite3 *database, struct profile_builder *builder,
                                      size_t index, struct tracked_memory *tracked,
                                      struct load_error *error);

/* The error for a failed SQLite call: "reading TABLE: MESSAGE", the
 * status LOAD_NO_MEMORY for SQLITE_NOMEM and LOAD_BAD_INPUT otherwise. */
enum load_status skyline_sqlite_error(sqlite3 *database, int code, const char *what,
                                      struct load_error *error);

#endif
