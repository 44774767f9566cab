/* file_kind: what a file no memory-profile format claims looks like, so
 * that memtop says "not a memory profile: a ZIP archive (a PyTorch
 * checkpoint?)" instead of the protobuf reader's words about a field.
 *
 * Owns: the magic numbers of the files people give memtop by mistake
 * (ZIP, i.e. torch.save's checkpoints; Python pickles; TensorBoard event
 * files; NumPy arrays; HDF5; ELF binaries; PNG, PDF) and the words for
 * them, and the message for gzip that holds none of the formats.
 * Called by: load.c, before the formats' probes see the bytes (the
 * MemoryProfile protobuf reader takes any bytes it is given).
 * Must not: read past the first bytes of a file, or claim a file a format
 * of the table reads (every magic here is one no format starts with). */
#ifndef MEMTOP_FILE_KIND_H
#define MEMTOP_FILE_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When the bytes (inflated, for gzip) are a kind of file that is not a
 * memory profile: true, with "not a memory profile: a ZIP archive (a
 * PyTorch checkpoint?)" in message. `path` (may be NULL) helps name a
 * TensorBoard event file. */
bool file_kind_foreign(const uint8_t *bytes, size_t size, const char *path, bool gzipped,
                       char *message, size_t message_size);

/* "gzip of text ("hello world, ...")" / "gzip of binary data": what gzip
 * input that no format claims holds, for the unclaimed message. */
void file_kind_describe_inflated(const uint8_t *bytes, size_t size, char *text, size_t size_text);

#endif
