/* input_format: the table of file formats memtop reads, the one seam a new
 * format plugs into.
 *
 * Owns: one row per format: its name (what --summary --json prints as
 * "format"), a description, a probe that judges the first bytes, a loader,
 * the file-name suffixes a directory scan takes as this format's, and how
 * a host is named from such a file. Detection by content (the best probe
 * wins) and by name (the longest known suffix wins) both read this table.
 * Called by: load.c (detection, then the row's loader), host_list.c (which
 * files in a directory are profiles, and their host names), profile.c
 * (format names).
 * Must not: hold format knowledge itself: a row's functions live in the
 * format's own file, which defines the row (see input_formats.c for how
 * to add one). Adding a format = one new file + one line in the table. */
#ifndef MEMTOP_INPUT_FORMAT_H
#define MEMTOP_INPUT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load_internal.h"
#include "model/profile_builder.h"

/* What a loader reads. */
struct load_input {
    const char *path;             /* the file's path, or the name given with bytes */
    const uint8_t *bytes;         /* the content, inflated if it was gzip; NULL
                                     for a format that reads its path itself */
    size_t size;
    struct load_tracker *tracker; /* progress and page release; may be NULL */
};

/* How sure a probe is that the bytes are its format's: 0 not at all; a
 * format that takes anything it is given answers PROBE_FALLBACK, a
 * plausible first byte PROBE_LIKELY, a magic number PROBE_CERTAIN. The
 * highest answer wins, the earlier row on a tie. */
enum {
    PROBE_NO = 0,
    PROBE_FALLBACK = 1,
    PROBE_LIKELY = 50,
    PROBE_CERTAIN = 100,
};

/* The first bytes a probe of a path-reading format sees. */
#define INPUT_FORMAT_HEAD_BYTES 512

struct input_format {
    const char *name;        /* "pb", "json": short, stable, for scripts */
    const char *description; /* for people */
    /* Judges [bytes, bytes+size): the whole input (inflated when gzip),
     * or its first INPUT_FORMAT_HEAD_BYTES for a path-reading format.
     * NULL: never chosen by content. */
    unsigned (*probe)(const uint8_t *bytes, size_t size);
    /* Reads input into the builder (which load.c starts and finishes). */
    enum load_status (*load)(const struct load_input *input, struct profile_builder *builder,
                             struct load_error *error);
    /* File names a directory scan takes (NULL-terminated; multi-dot ones
     * like ".memory_profile.json.gz" are fine). The host of a file is its
     * name minus the longest known suffix. */
    const char *const *suffixes;
    /* The loader opens input->path itself (SQLite): load.c neither maps
     * nor inflates the file, and input->bytes is NULL. */
    bool reads_path;
    /* The host is the file name before its first dot instead (memtop's
     * rule for MemoryProfile files before this table existed). */
    bool host_before_first_dot;
    /* The row only recognises a form memtop cannot read, to refuse it
     * with what to do (an SQLite report given as gzip or through a pipe):
     * it is not one of the formats memtop reads, and lists say so. */
    bool refuses_only;
    /* A host name the format reads from a file's name without its
     * suffix (`stem`, `length` bytes): PyTorch snapshots dumped one per
     * rank are "rank3" whatever the script called them
     * (`oom_rank3`, `memory_trace_3`). malloc'd, or NULL to keep the
     * stem. NULL: the stem. A directory whose hosts all have such names
     * lists them in natural order (rank2 before rank10). */
    char *(*host_name)(const char *stem, size_t length);
    /* What an empty file named with one of the suffixes means (XSpace:
     * a capture too big for protobuf); NULL: just "empty file". */
    const char *empty_file_message;
    /* The loader reads the whole records before a cut (a Chrome trace's
     * events): gzip data that stops early is inflated as far as it goes
     * and read with a warning, not refused. */
    bool reads_cut_data;
};

size_t input_format_count(void);
const struct input_format *input_format_at(size_t index);

/* The row whose probe is surest of the bytes, among the rows that read
 * bytes (reads_path false) or those that read paths (true); NULL when
 * none claims them. */
const struct input_format *input_format_detect(const uint8_t *bytes, size_t size,
                                               bool reads_path);
/* The same, the file name breaking a tie: among the rows whose probes are
 * equally sure, the one whose suffix ends `path` (a file name, with or
 * without directories; may be NULL) wins. */
const struct input_format *input_format_detect_named(const uint8_t *bytes, size_t size,
                                                     bool reads_path, const char *path);
/* What to say of an empty file at `path` (may be NULL): its row's
 * empty_file_message by suffix, else "empty file". */
const char *input_format_empty_message(const char *path);
/* Whether any row reads its path itself (so load.c looks at a file's head
 * before it maps it). */
bool input_format_any_reads_path(void);

/* The row with the longest suffix that ends `name` (a file name, no
 * directory), and that suffix's length; NULL when none does. */
const struct input_format *input_format_for_name(const char *name, size_t *suffix_length);

#endif
