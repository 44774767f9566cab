/* wire: protobuf wire bytes for the XSpace generator (tests/generate_xspace).
 *
 * Owns varints, tags, fixed64 and length prefixes, a growable byte buffer
 * and a "sink": where bytes go (a buffer, a FILE, or nowhere but a count,
 * so a message's length can be measured by writing it once to a counting
 * sink). It knows nothing of XSpace. Out of memory and write errors end
 * the program (exit 1): the generator is a test tool. */
#ifndef XSPACE_GEN_WIRE_H
#define XSPACE_GEN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum wire_type { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2 };

struct bytes {
    uint8_t *data;
    size_t size;
    size_t capacity;
};

/* Where written bytes go: `buffer` when set, else `file` when set, else
 * nowhere; `count` always grows by what was written. A file sink stages
 * small writes in `stage` (see sink_open_file, sink_flush). */
struct sink {
    struct bytes *buffer;
    FILE *file;
    uint64_t count;
    uint8_t *stage;
    size_t staged;
};

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *memory, size_t count, size_t size);
/* Prints "generate_xspace: MESSAGE" and exits 1. */
_Noreturn void fatal(const char *message);

void bytes_free(struct bytes *bytes);
void bytes_put(struct bytes *bytes, const void *data, size_t size);

/* The length of `value` as a varint: 1 to 10. */
size_t varint_size(uint64_t value);
/* The length of a length-delimited field: tag, length prefix, payload. */
size_t length_field_size(uint32_t field, uint64_t payload_size);

/* A sink writing to `file` through a staging buffer. */
struct sink sink_open_file(FILE *file);
/* Writes what is staged; frees the stage. */
void sink_close(struct sink *sink);
void sink_put(struct sink *sink, const void *data, size_t size);
void sink_varint(struct sink *sink, uint64_t value);
void sink_tag(struct sink *sink, uint32_t field, enum wire_type type);
/* A varint field, even when the value is 0 (callers leave out zeros). */
void sink_varint_field(struct sink *sink, uint32_t field, uint64_t value);
void sink_fixed64_field(struct sink *sink, uint32_t field, uint64_t bits);
/* Tag and length prefix of a length-delimited field whose payload follows. */
void sink_length_prefix(struct sink *sink, uint32_t field, uint64_t payload_size);
void sink_bytes_field(struct sink *sink, uint32_t field, const void *data, size_t size);

#endif
