#include "config.h"

#include "model/decode/gzip.h"

#include "model/load_internal.h"

#include <stdlib.h>
#include <zlib.h>

bool gzip_is_compressed(const uint8_t *bytes, size_t size)
{
    return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

/* The last member's trailer holds its size mod 2^32: a good first guess
 * for the buffer, never trusted beyond that. */
static size_t gzip_size_hint(const uint8_t *bytes, size_t size, uint64_t max_bytes)
{
    uint64_t hint = 1 << 16;
    if (size >= 18) {
        const uint8_t *trailer = bytes + size - 4;
        hint = (uint64_t)trailer[0] | (uint64_t)trailer[1] << 8 | (uint64_t)trailer[2] << 16 |
               (uint64_t)trailer[3] << 24;
        if (hint < size)
            hint = size;
    }
    if (hint > max_bytes)
        hint = max_bytes;
    return (size_t)hint + 1;
}

static bool buffer_grow(uint8_t **buffer, size_t *capacity, uint64_t max_bytes)
{
    uint64_t grown = (uint64_t)*capacity * 2;
    if (grown > max_bytes + 1)
        grown = max_bytes + 1;
    if (grown > SIZE_MAX)
        return false;
    uint8_t *bigger = realloc(*buffer, (size_t)grown);
    if (!bigger)
        return false;
    *buffer = bigger;
    *capacity = (size_t)grown;
    return true;
}

/* Bytes past the last member that do not start another: refused, since a
 * file that goes on past its end is not what its writer wrote. */
static enum load_status gzip_fail_trailing(size_t offset, struct load_error *error)
{
    load_error_set(error, "trailing data after the gzip stream at offset %zu", offset);
    if (error) {
        error->offset = offset;
        error->has_offset = true;
    }
    return LOAD_BAD_INPUT;
}

enum load_status gzip_inflate(const uint8_t *bytes, size_t size, uint64_t max_bytes,
                              uint8_t **out, size_t *out_size, struct load_error *error)
{
    size_t capacity = gzip_size_hint(bytes, size, max_bytes);
    uint8_t *buffer = malloc(capacity);
    z_stream stream = {0};
    if (!buffer || inflateInit2(&stream, 15 + 16) != Z_OK) {
        free(buffer);
        load_error_set(error, "out of memory inflating gzip data");
        return LOAD_NO_MEMORY;
    }
    enum load_status status = LOAD_OK;
    size_t consumed = 0, produced = 0;
    for (;;) {
        if (produced == capacity) {
            if (produced > max_bytes) {
                load_error_set(error, "gzip data inflates past %llu bytes; refusing it "
                               "(a decompression bomb?)", (unsigned long long)max_bytes);
                status = LOAD_BAD_INPUT;
                break;
            }
            if (!buffer_grow(&buffer, &capacity, max_bytes)) {
                load_error_set(error, "out of memory inflating gzip data");
                status = LOAD_NO_MEMORY;
                break;
            }
        }
        /* zlib counts in uInt: feed at most 1 GiB at a time. */
        size_t in_chunk = size - consumed < (1u << 30) ? size - consumed : (1u << 30);
        size_t out_chunk = capacity - produced < (1u << 30) ? capacity - produced : (1u << 30);
        stream.next_in = (Bytef *)(bytes + consumed);
        stream.avail_in = (uInt)in_chunk;
        stream.next_out = buffer + produced;
        stream.avail_out = (uInt)out_chunk;
        int result = inflate(&stream, Z_NO_FLUSH);
        consumed += in_chunk - stream.avail_in;
        produced += out_chunk - stream.avail_out;
        if (result == Z_STREAM_END) {
            /* Another member may follow (concatenated gzip files); other
             * bytes after the stream are no part of it. */
            if (consumed < size && gzip_is_compressed(bytes + consumed, size - consumed)) {
                inflateReset(&stream);
                continue;
            }
            if (consumed < size)
                status = gzip_fail_trailing(consumed, error);
            break;
        }
        if (result == Z_OK || (result == Z_BUF_ERROR && stream.avail_out == 0))
            continue;
        if (result == Z_MEM_ERROR) {
            load_error_set(error, "out of memory inflating gzip data");
            status = LOAD_NO_MEMORY;
        } else {
            /* zlib wants more input only when the data stops early; a bad
             * check value at the very end is corruption, not truncation. */
            load_error_at(error, consumed, "%s gzip data",
                          result == Z_BUF_ERROR ? "truncated" : "corrupt");
            status = LOAD_BAD_INPUT;
        }
        break;
    }
    inflateEnd(&stream);
    if (status == LOAD_OK && produced > max_bytes) {
        load_error_set(error, "gzip data inflates past %llu bytes; refusing it "
                       "(a decompression bomb?)", (unsigned long long)max_bytes);
        status = LOAD_BAD_INPUT;
    }
    if (status != LOAD_OK) {
        free(buffer);
        return status;
    }
    *out = buffer;
    *out_size = produced;
    return LOAD_OK;
}
