#include "config.h"

#include "model/load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gzip.h"

/* A gzip member inflates at most ~1032:1; real profiles compress 5-20x.
 * Past this many times the compressed size, or past the absolute cap, the
 * input is refused as a likely decompression bomb. */
#define GZIP_MAX_RATIO 256
#define GZIP_MIN_CAP ((uint64_t)64 << 20)
#define GZIP_ABSOLUTE_CAP ((uint64_t)16 << 30)

void load_error_set(struct load_error *error, const char *format, ...)
{
    if (!error)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error->message, sizeof error->message, format, arguments);
    va_end(arguments);
}

static uint64_t gzip_cap(size_t compressed_size, const struct load_options *options)
{
    if (options && options->max_inflated_bytes)
        return options->max_inflated_bytes;
    uint64_t cap = (uint64_t)compressed_size * GZIP_MAX_RATIO;
    if (cap < GZIP_MIN_CAP)
        cap = GZIP_MIN_CAP;
    return cap > GZIP_ABSOLUTE_CAP ? GZIP_ABSOLUTE_CAP : cap;
}

/* JSON when the first byte past blanks (and a UTF-8 byte order mark) opens
 * an object or an array. A protobuf MemoryProfile starts with a field tag:
 * '{' (0x7b) would be field 15 with wire type 3, which it never has. */
static bool bytes_look_like_json(const uint8_t *bytes, size_t size)
{
    size_t i = 0;
    if (size >= 3 && bytes[0] == 0xef && bytes[1] == 0xbb && bytes[2] == 0xbf)
        i = 3;
    while (i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r'))
        i++;
    return i < size && (bytes[i] == '{' || bytes[i] == '[');
}

static enum load_status load_decoded(const uint8_t *bytes, size_t size, struct profile *profile,
                                     struct load_error *error)
{
    enum load_status status;
    if (bytes_look_like_json(bytes, size)) {
        profile->format = PROFILE_FORMAT_JSON;
        status = load_json(bytes, size, profile, error);
    } else {
        profile->format = PROFILE_FORMAT_PROTOBUF;
        status = load_protobuf(bytes, size, profile, error);
    }
    if (status != LOAD_OK)
        return status;
    if (!profile_finish(profile)) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    if (profile->allocator_count == 0) {
        load_error_set(error, "no allocators in it: not a memory profile, or an empty one");
        return LOAD_BAD_INPUT;
    }
    return LOAD_OK;
}

enum load_status profile_load_bytes(const uint8_t *bytes, size_t size, const char *name,
                                    const struct load_options *options,
                                    struct profile **out, struct load_error *error)
{
    *out = NULL;
    if (size == 0) {
        load_error_set(error, "empty file");
        return LOAD_BAD_INPUT;
    }
    struct profile *profile = profile_new();
    if (!profile || !(profile->path = strdup(name ? name : ""))) {
        profile_free(profile);
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    profile->file_bytes = size;
    enum load_status status;
    if (gzip_is_compressed(bytes, size)) {
        uint8_t *inflated = NULL;
        size_t inflated_size = 0;
        profile->gzipped = true;
        status = gzip_inflate(bytes, size, gzip_cap(size, options), &inflated, &inflated_size,
                              error);
        if (status == LOAD_OK && inflated_size == 0) {
            load_error_set(error, "empty after gzip decompression");
            status = LOAD_BAD_INPUT;
        }
        if (status == LOAD_OK)
            status = load_decoded(inflated, inflated_size, profile, error);
        free(inflated);
    } else {
        status = load_decoded(bytes, size, profile, error);
    }
    if (status != LOAD_OK) {
        profile_free(profile);
        return status;
    }
    *out = profile;
    return LOAD_OK;
}

static enum load_status load_open_error(struct load_error *error)
{
    load_error_set(error, "%s", strerror(errno));
    return errno == ENOMEM ? LOAD_NO_MEMORY : LOAD_BAD_INPUT;
}

enum load_status profile_load(const char *path, const struct load_options *options,
                              struct profile **out, struct load_error *error)
{
    *out = NULL;
    int descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (descriptor < 0)
        return load_open_error(error);
    struct stat status_buffer;
    if (fstat(descriptor, &status_buffer) != 0) {
        enum load_status status = load_open_error(error);
        close(descriptor);
        return status;
    }
    if (S_ISDIR(status_buffer.st_mode) || !S_ISREG(status_buffer.st_mode)) {
        close(descriptor);
        load_error_set(error, S_ISDIR(status_buffer.st_mode) ? "is a directory"
                                                             : "not a regular file");
        return LOAD_BAD_INPUT;
    }
    size_t size = (size_t)status_buffer.st_size;
    if (size == 0) {
        close(descriptor);
        load_error_set(error, "empty file");
        return LOAD_BAD_INPUT;
    }
    void *mapping = mmap(NULL, size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    close(descriptor);
    if (mapping == MAP_FAILED)
        return load_open_error(error);
    madvise(mapping, size, MADV_SEQUENTIAL);
    enum load_status status = profile_load_bytes(mapping, size, path, options, out, error);
    munmap(mapping, size);
    return status;
}
