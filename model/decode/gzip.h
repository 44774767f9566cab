/* gzip: inflating gzip input (one member or several) into memory.
 *
 * Owns: the gzip wrapper every format can come in: inflation stops at a
 * cap so a small hostile file cannot fill memory, and bytes after the last
 * member that are not another member are refused.
 * Called by: load.c, before the formats' probes see the bytes.
 * Must not: look at what the inflated bytes hold. */
#ifndef MEMTOP_GZIP_H
#define MEMTOP_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load.h"

bool gzip_is_compressed(const uint8_t *bytes, size_t size);

/* Inflates into a malloc'd buffer (*out, *out_size), which the caller
 * frees. LOAD_BAD_INPUT for corrupt data or output past max_bytes. */
enum load_status gzip_inflate(const uint8_t *bytes, size_t size, uint64_t max_bytes,
                              uint8_t **out, size_t *out_size, struct load_error *error);

#endif
