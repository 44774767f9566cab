/* input_formats: the table itself (see input_format.h).
 *
 * To add a format NAME: write model/formats/NAME/NAME.c (its face)
 * defining
 *     const struct input_format NAME_format = { "name", "description",
 *         probe, load, suffixes, reads_path, host_before_first_dot };
 * (its probe and load static there), the rest of the reader beside it
 * with model/formats/NAME/NAME_internal.h indexing the folder, its tests
 * in tests/formats/NAME/ (NAME.am, fuzz_NAME.c); list the sources and
 * include NAME.am in Makefile.am, and add two lines below. The order
 * matters only when two probes tie. */
#include "config.h"

#include "model/input_format.h"
#include "model/load.h"

#include <string.h>

/* In model/formats/: */
extern const struct input_format memory_profile_protobuf_format; /* memory_profile/load_protobuf.c */
extern const struct input_format memory_profile_json_format;     /* memory_profile/load_json.c */
extern const struct input_format skyline_format;                 /* skyline/load_skyline.c */
extern const struct input_format skyline_bytes_format;           /* skyline/load_skyline.c */
extern const struct input_format chrome_trace_format;            /* chrome_trace/load_trace.c */
extern const struct input_format xspace_format;                  /* xspace/load_xspace.c */
extern const struct input_format xspace_riegeli_format;          /* xspace/load_xspace.c */
extern const struct input_format oom_log_format;                 /* formats/oom_log/oom_log.c */
extern const struct input_format torch_snapshot_format; /* formats/torch_snapshot/torch_snapshot.c */

static const struct input_format *const input_formats[] = {
    &memory_profile_protobuf_format,
    &memory_profile_json_format,
    &skyline_format,
    &skyline_bytes_format,
    &chrome_trace_format,
    &xspace_format,
    &xspace_riegeli_format,
    &oom_log_format,
    &torch_snapshot_format,
};

#define INPUT_FORMAT_COUNT (sizeof input_formats / sizeof *input_formats)

size_t input_format_count(void)
{
    return INPUT_FORMAT_COUNT;
}

const struct input_format *input_format_at(size_t index)
{
    return index < INPUT_FORMAT_COUNT ? input_formats[index] : NULL;
}

const struct input_format *input_format_detect(const uint8_t *bytes, size_t size,
                                               bool reads_path)
{
    return input_format_detect_named(bytes, size, reads_path, NULL);
}

/* The row a file name's suffix names, or NULL. */
static const struct input_format *input_format_named(const char *path)
{
    if (!path)
        return NULL;
    const char *slash = strrchr(path, '/');
    size_t suffix_length;
    return input_format_for_name(slash ? slash + 1 : path, &suffix_length);
}

const struct input_format *input_format_detect_named(const uint8_t *bytes, size_t size,
                                                     bool reads_path, const char *path)
{
    const struct input_format *best = NULL, *named = input_format_named(path);
    unsigned best_confidence = PROBE_NO;
    for (size_t i = 0; i < INPUT_FORMAT_COUNT; i++) {
        const struct input_format *format = input_formats[i];
        if (format->reads_path != reads_path || !format->probe)
            continue;
        unsigned confidence = format->probe(bytes, size);
        if (confidence > best_confidence ||
            (confidence == best_confidence && confidence > PROBE_NO && format == named)) {
            best = format;
            best_confidence = confidence;
        }
    }
    return best;
}

const char *input_format_empty_message(const char *path)
{
    const struct input_format *named = input_format_named(path);
    return named && named->empty_file_message ? named->empty_file_message : "empty file";
}

bool input_format_any_reads_path(void)
{
    for (size_t i = 0; i < INPUT_FORMAT_COUNT; i++)
        if (input_formats[i]->reads_path)
            return true;
    return false;
}

const struct input_format *input_format_for_name(const char *name, size_t *suffix_length)
{
    const struct input_format *found = NULL;
    size_t name_length = strlen(name), longest = 0;
    for (size_t i = 0; i < INPUT_FORMAT_COUNT; i++) {
        for (const char *const *suffix = input_formats[i]->suffixes; suffix && *suffix; suffix++) {
            size_t length = strlen(*suffix);
            if (length > longest && name_length > length &&
                strcmp(name + name_length - length, *suffix) == 0) {
                found = input_formats[i];
                longest = length;
            }
        }
    }
    *suffix_length = longest;
    return found;
}

bool load_format_describe(size_t index, const char **name, const char **description)
{
    for (size_t row = 0; row < input_format_count(); row++) {
        const struct input_format *format = input_format_at(row);
        if (format->refuses_only || index-- > 0)
            continue;
        *name = format->name;
        *description = format->description;
        return true;
    }
    return false;
}
