/* wire: see wire.h. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/wire.h"

#include <stdlib.h>
#include <string.h>

_Noreturn void fatal(const char *message)
{
    fprintf(stderr, "generate_xspace: %s\n", message);
    exit(1);
}

void *xmalloc(size_t size)
{
    void *memory = malloc(size ? size : 1);
    if (memory == NULL)
        fatal("out of memory");
    return memory;
}

void *xcalloc(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size ? size : 1);
    if (memory == NULL)
        fatal("out of memory");
    return memory;
}

void *xrealloc(void *memory, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        fatal("out of memory");
    size_t bytes = count * size;
    void *grown = realloc(memory, bytes != 0 ? bytes : 1);
    if (grown == NULL)
        fatal("out of memory");
    return grown;
}

void bytes_free(struct bytes *bytes)
{
    free(bytes->data);
    *bytes = (struct bytes){0};
}

void bytes_put(struct bytes *bytes, const void *data, size_t size)
{
    if (size == 0)
        return;
    if (bytes->capacity - bytes->size < size) {
        size_t capacity = bytes->capacity ? bytes->capacity : 256;
        while (capacity - bytes->size < size) {
            if (capacity > SIZE_MAX / 2)
                fatal("out of memory");
            capacity *= 2;
        }
        bytes->data = xrealloc(bytes->data, capacity, 1);
        bytes->capacity = capacity;
    }
    memcpy(bytes->data + bytes->size, data, size);
    bytes->size += size;
}

size_t varint_size(uint64_t value)
{
    size_t size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

size_t length_field_size(uint32_t field, uint64_t payload_size)
{
    return varint_size((uint64_t)field << 3 | WIRE_LENGTH) + varint_size(payload_size) +
           (size_t)payload_size;
}

#define STAGE_SIZE (1 << 16)

struct sink sink_open_file(FILE *file)
{
    return (struct sink){.file = file, .stage = xmalloc(STAGE_SIZE)};
}

static void sink_write_stage(struct sink *sink)
{
    if (sink->staged != 0 && fwrite(sink->stage, 1, sink->staged, sink->file) != sink->staged)
        fatal("cannot write the output");
    sink->staged = 0;
}

void sink_close(struct sink *sink)
{
    if (sink->stage != NULL)
        sink_write_stage(sink);
    free(sink->stage);
    sink->stage = NULL;
}

void sink_put(struct sink *sink, const void *data, size_t size)
{
    if (sink->buffer != NULL) {
        bytes_put(sink->buffer, data, size);
    } else if (sink->file != NULL && size != 0) {
        if (sink->stage == NULL) {
            if (fwrite(data, 1, size, sink->file) != size)
                fatal("cannot write the output");
        } else {
            if (STAGE_SIZE - sink->staged < size)
                sink_write_stage(sink);
            if (size >= STAGE_SIZE) {
                if (fwrite(data, 1, size, sink->file) != size)
                    fatal("cannot write the output");
            } else {
                memcpy(sink->stage + sink->staged, data, size);
                sink->staged += size;
            }
        }
    }
    sink->count += size;
}

void sink_varint(struct sink *sink, uint64_t value)
{
    uint8_t encoded[10];
    size_t size = 0;
    while (value >= 0x80) {
        encoded[size++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    encoded[size++] = (uint8_t)value;
    sink_put(sink, encoded, size);
}

void sink_tag(struct sink *sink, uint32_t field, enum wire_type type)
{
    sink_varint(sink, (uint64_t)field << 3 | (uint64_t)type);
}

void sink_varint_field(struct sink *sink, uint32_t field, uint64_t value)
{
    sink_tag(sink, field, WIRE_VARINT);
    sink_varint(sink, value);
}

void sink_fixed64_field(struct sink *sink, uint32_t field, uint64_t bits)
{
    uint8_t encoded[8];
    for (int i = 0; i < 8; i++)
        encoded[i] = (uint8_t)(bits >> (8 * i));
    sink_tag(sink, field, WIRE_FIXED64);
    sink_put(sink, encoded, sizeof encoded);
}

void sink_length_prefix(struct sink *sink, uint32_t field, uint64_t payload_size)
{
    sink_tag(sink, field, WIRE_LENGTH);
    sink_varint(sink, payload_size);
}

void sink_bytes_field(struct sink *sink, uint32_t field, const void *data, size_t size)
{
    sink_length_prefix(sink, field, size);
    sink_put(sink, data, size);
}
