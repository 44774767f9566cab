/* compare_report: `memtop --summary --compare BASE NEW`, for people
 * (text) and for scripts and CI (JSON through report/json_writer.h):
 * both profiles' summaries, and for each pair of allocators matched by
 * memory id (model/query/compare.h) the deltas of the peak, the heap and stack
 * at the peak, the capacity and the allocation counts.
 *
 * It also owns the list of the fields compared (label, JSON name, how to
 * read one side's value, whether the format records it), which the
 * viewer's compare summary draws too, so the report and the screen
 * compare the same things. Called by main (one comparison) and the
 * viewer. It writes only what the model computed: no loading, no exit
 * codes; a profile's text goes through format_safe_text (text) or the
 * JSON writer's escaping, never raw. */
#ifndef MEMTOP_COMPARE_REPORT_H
#define MEMTOP_COMPARE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/query/compare.h"
#include "model/profile.h"
#include "report/summary_report.h"

struct json_writer;

enum compare_field_id {
    COMPARE_FIELD_PEAK,
    COMPARE_FIELD_HEAP,
    COMPARE_FIELD_STACK,
    COMPARE_FIELD_CAPACITY,
    COMPARE_FIELD_ALLOCATIONS,
    COMPARE_FIELD_DEALLOCATIONS,
    COMPARE_FIELD_COUNT
};

struct compare_field {
    const char *label;       /* "Peak memory usage": the text report's */
    const char *short_label; /* "Peak": a narrow pane's */
    const char *json_name;   /* "peak_bytes" */
    bool is_bytes;           /* bytes; else a count */
};

const struct compare_field *compare_field(enum compare_field_id id);

/* One side's value of a field; false when the side is absent (NULL) or
 * its format does not record the field (a trace's capacity, stack). */
bool compare_field_value(enum compare_field_id id, const struct allocator *allocator,
                         int64_t *value);
/* The pair's delta of a field (new - base, as model/query/compare.h computed
 * it); false unless both sides have a value. */
bool compare_field_delta(enum compare_field_id id, const struct allocator_pair *pair,
                         int64_t *delta);

/* "both", "base" or "new": where the pair's allocator is. */
const char *compare_pair_presence(const struct allocator_pair *pair);
/* The pair's memory id, from whichever side has it (all its bytes). */
struct text compare_pair_id(const struct allocator_pair *pair, const struct profile *base,
                            const struct profile *new);

/* The new side's memory id when --pair paired allocators of different
 * names (cuda:0 against GPU_0_bfc), else the empty text. */
struct text compare_pair_new_id(const struct allocator_pair *pair, const struct profile *base,
                                const struct profile *new);
/* "GPU_0_bfc=cuda:0" for such a pair, else the id, into buffer (cut to
 * its size); the text's bytes may hold NULs. */
struct text compare_pair_label(const struct allocator_pair *pair, const struct profile *base,
                               const struct profile *new, char *buffer, size_t size);

/* The text report: the two files, then one block per pair: a line per
 * field with base, new and delta ("+1.25 GiB", "-3", "0"), then the
 * largest changes of what was live at the two peaks, by op, or by
 * location where the format records one (model/query/compare.h's op table,
 * options->top_rows of them, those that changed; options may be NULL:
 * SUMMARY_REPORT_TOP_ROWS). */
void compare_report_text(FILE *out, const struct profile *base, const struct profile *new,
                         const struct profile_comparison *comparison,
                         const struct summary_report_options *options);
/* The JSON object {"base":{summary},"new":{summary},"allocators":[...]}
 * (man page: TWO PROFILES COMPARED), as a value of the writer; each
 * allocator's "changes_by" ("op" or "location") and "changes" (as the
 * text's). */
void compare_report_json_to(struct json_writer *writer, const struct profile *base,
                            const struct profile *new, const struct profile_comparison *comparison,
                            const struct summary_report_options *options);

#endif
