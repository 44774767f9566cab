#include "config.h"

#include "model/load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/decode/gzip.h"
#include "model/decode/file_kind.h"
#include "model/input_format.h"
#include "model/load_internal.h"
#include "model/decode/mapping_guard.h"
#include "model/decode/memory_available.h"
#include "model/profile_builder.h"
#include "model/decode/text_encoding.h"

/* A gzip member inflates at most ~1032:1; real profiles compress 5-20x.
 * Past this many times the compressed size, or past the absolute cap, the
 * input is refused as a likely decompression bomb. The ratio is checked as
 * the data inflates (past the first GZIP_MIN_CAP bytes), so a bomb is
 * refused early; and the cap is held to the memory this process can still
 * have, so that a file too big for it is refused as such (status 2) before
 * an allocation fails halfway (status 1). */
#define GZIP_MAX_RATIO 256
#define GZIP_MIN_CAP ((uint64_t)64 << 20)
#define GZIP_ABSOLUTE_CAP ((uint64_t)16 << 30)
#define GZIP_MEMORY_MARGIN ((uint64_t)32 << 20)

static struct gzip_limits gzip_cap(size_t compressed_size, const struct load_options *options)
{
    if (options && options->max_inflated_bytes)
        return (struct gzip_limits){options->max_inflated_bytes, 0, 0, false};
    struct gzip_limits limits = {(uint64_t)compressed_size * GZIP_MAX_RATIO, GZIP_MAX_RATIO,
                                 GZIP_MIN_CAP, false};
    if (limits.max_bytes < GZIP_MIN_CAP)
        limits.max_bytes = GZIP_MIN_CAP;
    if (limits.max_bytes > GZIP_ABSOLUTE_CAP)
        limits.max_bytes = GZIP_ABSOLUTE_CAP;
    uint64_t available = memory_available();
    /* Less a margin for the allocator's own needs and the loader's first. */
    uint64_t usable = available > GZIP_MIN_CAP + GZIP_MEMORY_MARGIN
                          ? available - GZIP_MEMORY_MARGIN
                          : GZIP_MIN_CAP;
    if (usable < limits.max_bytes) {
        limits.max_bytes = usable;
        limits.memory_bound = true;
    }
    return limits;
}

/* What load.c knows of the file, for the profile. */
struct load_source {
    const char *path;
    bool gzipped;
    uint64_t file_bytes; /* as read: compressed if gzipped */
    uint64_t cut_at;     /* gzip data that stops at this offset; 0: whole */
};

/* Runs `format`'s loader on `input`, then finishes the profile. */
static enum load_status load_with_format(const struct input_format *format,
                                         const struct load_input *input,
                                         const struct load_source *source,
                                         struct profile **out, struct load_error *error)
{
    struct profile_builder builder;
    if (!profile_builder_init(&builder) ||
        !profile_builder_set_source(&builder, source->path, format, source->gzipped,
                                    source->file_bytes)) {
        profile_builder_discard(&builder);
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    enum load_status status = format->load(input, &builder, error);
    char cut[160];
    snprintf(cut, sizeof cut, "the gzip data ends early at offset %llu (still being written or "
                              "copied?): what came before it is read",
             (unsigned long long)source->cut_at);
    if (status == LOAD_OK && source->cut_at && !profile_builder_add_warning(&builder, cut)) {
        load_error_set(error, "out of memory");
        status = LOAD_NO_MEMORY;
    }
    if (status != LOAD_OK) {
        profile_builder_discard(&builder);
        return status;
    }
    struct profile *profile = profile_builder_finish(&builder);
    if (!profile) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    if (profile->allocator_count == 0) {
        profile_free(profile);
        load_error_set(error, "no allocators in it: not a memory profile, or an empty one");
        return LOAD_BAD_INPUT;
    }
    load_tracker_finish(input->tracker);
    *out = profile;
    return LOAD_OK;
}

/* No probe claims the bytes (plain text, today): "not a memory profile",
 * with the formats memtop does read. */
static void load_error_set_unclaimed(struct load_error *error, const uint8_t *bytes, size_t size,
                                     bool gzipped)
{
    char names[128] = "", inflated[96];
    size_t used = 0;
    for (size_t i = 0; i < input_format_count() && used < sizeof names; i++)
        if (!input_format_at(i)->refuses_only)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                     used ? ", " : "", input_format_at(i)->name);
    if (gzipped) {
        file_kind_describe_inflated(bytes, size, inflated, sizeof inflated);
        load_error_set(error, "not a memory profile: %s (none of the formats memtop reads: %s)",
                       inflated, names);
        return;
    }
    load_error_set(error, "not a memory profile (none of the formats memtop reads: %s)", names);
}

/* Bytes in memory (inflated if they were gzip): the surest probe's format. */
static enum load_status load_decoded(const uint8_t *bytes, size_t size,
                                     const struct load_source *source,
                                     struct load_tracker *tracker, struct profile **out,
                                     struct load_error *error)
{
    tracker->total = size;
    char wide[128];
    if (text_encoding_is_wide(bytes, size, wide, sizeof wide)) {
        load_error_set(error, "%s", wide);
        return LOAD_BAD_INPUT;
    }
    char foreign[256];
    if (file_kind_foreign(bytes, size, source->path, source->gzipped, foreign, sizeof foreign)) {
        load_error_set(error, "%s", foreign);
        return LOAD_BAD_INPUT;
    }
    const struct input_format *format =
        input_format_detect_named(bytes, size, false, source->path);
    if (!format) {
        load_error_set_unclaimed(error, bytes, size, source->gzipped);
        return LOAD_BAD_INPUT;
    }
    struct load_input input = {source->path, bytes, size, tracker};
    return load_with_format(format, &input, source, out, error);
}

/* The pages of a file mapping: dropped behind the loader. They are the
 * page cache's, so dropping costs nothing and a later read maps them back;
 * never used on malloc'd memory, where MADV_DONTNEED would zero it. */
struct mapping {
    uint8_t *base;
    size_t size;
};

/* Drops the whole pages from the one holding `from` to the one before
 * `to`'s: the next range starts where this one stopped. */
static void mapping_drop(void *context, size_t from, size_t to)
{
    const struct mapping *mapping = context;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (to > mapping->size)
        to = mapping->size;
    from -= from % page;
    to -= to % page;
    if (to > from)
        madvise(mapping->base + from, to - from, MADV_DONTNEED);
}

/* gzip input: inflated, then read as any other bytes. */
static enum load_status load_gzip(const uint8_t *bytes, size_t size, struct load_source *source,
                                  const struct load_options *options, struct mapping *mapping,
                                  struct profile **out, struct load_error *error)
{
    struct load_tracker tracker = {.options = options};
    uint8_t *inflated = NULL;
    size_t inflated_size = 0;
    source->gzipped = true;
    struct gzip_limits limits = gzip_cap(size, options);
    uint64_t cut_at = 0;
    enum load_status status = gzip_inflate_within_cut(bytes, size, &limits, &inflated,
                                                      &inflated_size, &cut_at, error);
    /* Cut short: read only by a format that reads what came before a cut. */
    if (status == LOAD_OK && cut_at) {
        const struct input_format *format =
            input_format_detect_named(inflated, inflated_size, false, source->path);
        if (!format || !format->reads_cut_data || gzip_is_compressed(inflated, inflated_size)) {
            load_error_at(error, cut_at, "truncated gzip data");
            status = LOAD_BAD_INPUT;
        }
        source->cut_at = cut_at;
    }
    /* The compressed bytes are not read again. */
    if (mapping)
        mapping_drop(mapping, 0, mapping->size);
    /* gzip inside gzip (a .gz compressed again): inflated once more, within
     * the same cap; a third layer is named, not peeled. */
    if (status == LOAD_OK && gzip_is_compressed(inflated, inflated_size)) {
        uint8_t *inner = NULL;
        size_t inner_size = 0;
        /* The ratio is the outer file's: what the first layer gave counts
         * for nothing. */
        limits.ratio = 0;
        status = gzip_inflate_within(inflated, inflated_size, &limits, &inner, &inner_size,
                                     error);
        free(inflated);
        inflated = inner;
        inflated_size = inner_size;
        if (status == LOAD_OK && gzip_is_compressed(inflated, inflated_size)) {
            load_error_set(error, "gzip-compressed more than twice: gunzip it first");
            status = LOAD_BAD_INPUT;
        }
    }
    if (status == LOAD_OK && inflated_size == 0) {
        load_error_set(error, "empty after gzip decompression");
        status = LOAD_BAD_INPUT;
    }
    if (status == LOAD_OK)
        status = load_decoded(inflated, inflated_size, source, &tracker, out, error);
    free(inflated);
    return status;
}

/* profile_load_bytes(), with the file mapping the bytes are (or NULL). */
static enum load_status load_bytes(const uint8_t *bytes, size_t size, const char *name,
                                   const struct load_options *options, struct mapping *mapping,
                                   struct profile **out, struct load_error *error)
{
    *out = NULL;
    if (size == 0) {
        load_error_set(error, "%s", input_format_empty_message(name));
        return LOAD_BAD_INPUT;
    }
    struct load_source source = {name ? name : "", false, size, 0};
    if (gzip_is_compressed(bytes, size))
        return load_gzip(bytes, size, &source, options, mapping, out, error);
    struct load_tracker tracker = {.options = options};
    if (mapping) {
        tracker.release = mapping_drop;
        tracker.release_context = mapping;
    }
    return load_decoded(bytes, size, &source, &tracker, out, error);
}

enum load_status profile_load_bytes(const uint8_t *bytes, size_t size, const char *name,
                                    const struct load_options *options,
                                    struct profile **out, struct load_error *error)
{
    if (error)
        error->file = name;
    return load_bytes(bytes, size, name, options, NULL, out, error);
}

static enum load_status load_open_error(struct load_error *error)
{
    load_error_set(error, "%s", strerror(errno));
    return errno == ENOMEM ? LOAD_NO_MEMORY : LOAD_BAD_INPUT;
}

/* A format that reads its file by path (SQLite), judged by the file's
 * first bytes; NULL when none claims it and the file is mapped as usual. */
static const struct input_format *load_path_format(int descriptor, size_t size)
{
    if (!input_format_any_reads_path())
        return NULL;
    uint8_t head[INPUT_FORMAT_HEAD_BYTES];
    size_t want = size < sizeof head ? size : sizeof head;
    ssize_t got = pread(descriptor, head, want, 0);
    return got > 0 ? input_format_detect(head, (size_t)got, true) : NULL;
}

/* The file, mapped, through load_bytes(). */
static enum load_status load_mapped(int descriptor, size_t size, const char *path,
                                    const struct load_options *options, struct profile **out,
                                    struct load_error *error)
{
    void *mapping = mmap(NULL, size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    if (mapping == MAP_FAILED)
        return load_open_error(error);
    madvise(mapping, size, MADV_SEQUENTIAL);
    struct mapping pages = {mapping, size};
    mapping_guard_begin(mapping, size);
    enum load_status status = load_bytes(mapping, size, path, options, &pages, out, error);
    if (mapping_guard_end()) {
        /* Whatever was read, part of it was zeros standing in for data. */
        profile_free(*out);
        *out = NULL;
        load_error_set(error, "the file shrank while it was being read");
        status = LOAD_BAD_INPUT;
    }
    munmap(mapping, size);
    return status;
}

/* ---- input that is not a regular file: a pipe, a FIFO, a terminal ---- */

/* What a stream may hold: the cap gzip input inflates to, so a pipe is
 * held to what a file of the same bytes, gzipped, would be. */
static uint64_t stream_cap(const struct load_options *options)
{
    if (options && options->max_inflated_bytes)
        return options->max_inflated_bytes;
    return GZIP_ABSOLUTE_CAP;
}

#define STREAM_FIRST_READ ((size_t)1 << 20)

/* Reads `descriptor` to its end into a malloc'd buffer (*bytes, *size):
 * it cannot be mapped, and its size is known only at the end. */
static enum load_status stream_read_all(int descriptor, uint64_t cap, uint8_t **bytes,
                                        size_t *size, struct load_error *error)
{
    uint8_t *buffer = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            size_t grown = capacity ? capacity * 2 : STREAM_FIRST_READ;
            if (grown < capacity || grown > cap + 1)
                grown = (size_t)(cap + 1 > SIZE_MAX ? SIZE_MAX : cap + 1);
            uint8_t *larger = grown > capacity ? realloc(buffer, grown) : NULL;
            if (!larger) {
                free(buffer);
                load_error_set(error, "out of memory reading the input");
                return LOAD_NO_MEMORY;
            }
            buffer = larger;
            capacity = grown;
        }
        ssize_t got = read(descriptor, buffer + used, capacity - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buffer);
            return load_open_error(error);
        }
        if (got == 0)
            break;
        used += (size_t)got;
        if (used > cap) {
            free(buffer);
            load_error_set(error, "more than %llu bytes; refusing it (the cap for input that "
                                  "is not a regular file, as for gzip)",
                           (unsigned long long)cap);
            return LOAD_BAD_INPUT;
        }
    }
    *bytes = buffer;
    *size = used;
    return LOAD_OK;
}

/* A pipe, a FIFO or a device: read into memory (within the cap), then
 * loaded as bytes are. A format that reads its path (SQLite) cannot
 * come this way. */
static enum load_status load_stream(int descriptor, const char *path,
                                    const struct load_options *options, struct profile **out,
                                    struct load_error *error)
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    enum load_status status = stream_read_all(descriptor, stream_cap(options), &bytes, &size, error);
    if (status != LOAD_OK)
        return status;
    const struct input_format *by_path =
        size > 0 && input_format_any_reads_path()
            ? input_format_detect(bytes, size < INPUT_FORMAT_HEAD_BYTES ? size
                                                                        : INPUT_FORMAT_HEAD_BYTES,
                                  true)
            : NULL;
    if (by_path) {
        load_error_set(error, "%s is read from a file, not a pipe: save it first",
                       by_path->description);
        status = LOAD_BAD_INPUT;
    } else {
        status = load_bytes(bytes, size, path, options, NULL, out, error);
    }
    free(bytes);
    if (status == LOAD_BAD_INPUT && size == 0)
        load_error_set(error, "empty input");
    return status;
}

/* The size of the regular file open at `descriptor`, or an error;
 * *regular false (and LOAD_OK) for a pipe, a FIFO or a device, which
 * are read as streams. */
static enum load_status load_file_size(int descriptor, const char *path, size_t *size,
                                       bool *regular, struct load_error *error)
{
    struct stat status_buffer;
    if (fstat(descriptor, &status_buffer) != 0)
        return load_open_error(error);
    if (S_ISDIR(status_buffer.st_mode)) {
        load_error_set(error, "is a directory");
        return LOAD_BAD_INPUT;
    }
    *regular = S_ISREG(status_buffer.st_mode);
    if (!*regular)
        return LOAD_OK;
    /* A 32-bit build cannot map a file past 4 GiB: say so, do not wrap. */
    if ((uintmax_t)status_buffer.st_size != (size_t)status_buffer.st_size) {
        load_error_set(error, "too large to map on this machine");
        return LOAD_NO_MEMORY;
    }
    *size = (size_t)status_buffer.st_size;
    if (*size == 0) {
        load_error_set(error, "%s", input_format_empty_message(path));
        return LOAD_BAD_INPUT;
    }
    return LOAD_OK;
}

/* "-": standard input, which must not be the terminal memtop reads
 * keys from. */
static int load_open(const char *path, struct load_error *error)
{
    if (strcmp(path, LOAD_STANDARD_INPUT) != 0)
        return open(path, O_RDONLY | O_CLOEXEC);
    if (isatty(STDIN_FILENO)) {
        load_error_set(error, "standard input is a terminal; pipe a profile in "
                              "(memtop - < FILE, or gsutil cat URL | memtop -)");
        errno = 0;
        return -1;
    }
    return STDIN_FILENO;
}

/* JAX writes HOST.trace.json.gz (no memory events) beside HOST.xplane.pb
 * (where they are): a trace that fails says where to look. */
static enum load_status load_point_to_xspace(const char *path, enum load_status status,
                                             struct load_error *error)
{
    static const char trace[] = ".trace.json.gz";
    size_t length = strlen(path), tail = sizeof trace - 1;
    if (status != LOAD_BAD_INPUT || !error || length <= tail ||
        strcmp(path + length - tail, trace) != 0)
        return status;
    char sibling[4096];
    snprintf(sibling, sizeof sibling, "%.*s.xplane.pb", (int)(length - tail), path);
    if (access(sibling, R_OK) != 0)
        return status;
    char said[LOAD_ERROR_SIZE];
    snprintf(said, sizeof said, "%s", error->message);
    load_error_set(error, "%s; JAX keeps the memory events in the XSpace beside it: open %s",
                   said, sibling);
    return status;
}

enum load_status profile_load(const char *path, const struct load_options *options,
                              struct profile **out, struct load_error *error)
{
    *out = NULL;
    if (error)
        error->file = path;
    /* Blocking: a FIFO waits for its writer, as cat would. */
    int descriptor = load_open(path, error);
    if (descriptor < 0)
        return errno ? load_open_error(error) : LOAD_BAD_INPUT;
    size_t size = 0;
    bool regular = true;
    enum load_status status = load_file_size(descriptor, path, &size, &regular, error);
    const struct input_format *format =
        status == LOAD_OK && regular ? load_path_format(descriptor, size) : NULL;
    if (status == LOAD_OK && !regular)
        status = load_stream(descriptor, path, options, out, error);
    else if (status == LOAD_OK && !format)
        status = load_mapped(descriptor, size, path, options, out, error);
    if (descriptor != STDIN_FILENO)
        close(descriptor);
    if (status != LOAD_OK || !format)
        return load_point_to_xspace(path, status, error);
    struct load_tracker tracker = {.options = options, .total = size};
    struct load_input input = {path, NULL, 0, &tracker};
    struct load_source source = {path, false, size, 0};
    return load_with_format(format, &input, &source, out, error);
}
