/* torch_snapshot_contexts: each entry's context when its device is built
 * (see torch_snapshot_internal.h): its own part (compile_context,
 * user_metadata: the column the trace's replay wrote), with the
 * external annotations of its device open at its time before it and,
 * for an allocation on another stream than the default, that stream, so
 * that the rows at any moment say in which range and on which stream
 * their memory was made; then the column in runs
 * (snapshot_columns_compact_context's rule).
 * Where the entries come in time order the annotations change only at
 * the entries found by a search of the times, so the column is read
 * once and the runs made as it goes; otherwise (times that go back) the
 * annotations are swept entry by entry as the times come.
 * Called by torch_snapshot_replay.c. Must not: read the pickle or write
 * anything of the timeline but its context. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/string_table.h"
#include "model/timeline.h"

/* Brings the annotations of this device open at `time_us` up to date (a
 * sweep: `time_us` never goes back between calls), counting changes. */
static void annotations_advance(struct device_replay *replay, int64_t time_us)
{
    const struct ts_load *load = replay->load;
    uint32_t *open = replay->open_annotations;
    for (; replay->annotation_next < load->annotation_count; replay->annotation_next++) {
        const struct ts_annotation *note = &load->annotations[replay->annotation_next];
        if (note->time_us > time_us)
            break;
        if (note->device != replay->device)
            continue;
        if (note->start && replay->open_annotation_count < 16) {
            open[replay->open_annotation_count++] = note->name;
            replay->annotation_changes++;
        } else if (!note->start) {
            for (size_t j = replay->open_annotation_count; j-- > 0;)
                if (open[j] == note->name) {
                    memmove(open + j, open + j + 1,
                            (replay->open_annotation_count - j - 1) * sizeof *open);
                    replay->open_annotation_count--;
                    replay->annotation_changes++;
                    break;
                }
        }
    }
}

/* The context of an entry whose own part is `base` (compile context,
 * metadata), allocated on `stream` (0: the default), while the open
 * annotations are what they are: their names, outermost first, " > "
 * between, then the base, then "stream 0x...", "; " between. */
static uint32_t entry_context(struct device_replay *replay, uint32_t base, uint64_t stream)
{
    struct ts_load *load = replay->load;
    uint64_t hash = ((uint64_t)base * 0x9e3779b97f4a7c15u ^ stream) * 0xbf58476d1ce4e5b9u;
    struct context_made *made = &replay->contexts[hash >> 58 & (CONTEXTS_KEPT - 1)];
    if (made->changes == replay->annotation_changes + 1 && made->base == base &&
        made->stream == stream)
        return made->id;
    char text[1024];
    size_t used = 0;
    for (size_t j = 0; j < replay->open_annotation_count && used < 512; j++) {
        struct text name = string_table_get(load->strings, replay->open_annotations[j]);
        int n = snprintf(text + used, 512 - used, "%s%.*s", j ? " > " : "", (int)name.length,
                         name.bytes);
        if (n < 0 || (size_t)n >= 512 - used)
            break;
        used += (size_t)n;
    }
    struct text own = string_table_get(load->strings, base);
    if (own.length)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%.*s", used ? "; " : "",
                                 (int)own.length, own.bytes);
    if (stream && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%sstream 0x%llx",
                                 used ? "; " : "", (unsigned long long)stream);
    if (used >= sizeof text)
        used = sizeof text - 1;
    *made = (struct context_made){stream, replay->annotation_changes + 1, base,
                                  string_table_intern(load->strings, text, used)};
    return made->id;
}

/* The entries' contexts one by one, the annotations swept as each
 * entry's time comes (times that go back); false when memory runs out. */
static bool contexts_by_entry(struct device_replay *replay, struct snapshot_columns *columns,
                              bool annotated)
{
    const struct ts_trace *trace = replay->trace;
    size_t streams = trace ? trace->stream_count : 0, next_stream = 0;
    for (size_t i = 0; i < columns->count; i++) {
        if (annotated)
            annotations_advance(replay, snapshot_columns_time(columns, i));
        uint64_t stream = 0;
        if (next_stream < streams && trace->streams[next_stream].entry == i)
            stream = trace->streams[next_stream++].stream;
        if (replay->open_annotation_count == 0 && stream == 0)
            continue;
        uint32_t context = entry_context(replay, columns->context[i], stream);
        if (context == STRING_ID_NONE)
            return false;
        columns->context[i] = context;
    }
    return true;
}

/* A run list that grows; `lost` once memory ran out or the runs stopped
 * paying (more than a quarter of the entries: the column is kept). */
struct runs {
    struct context_run *runs;
    size_t count, capacity, most;
    bool lost;
};

static void runs_add(struct runs *runs, size_t first, uint32_t context)
{
    if (runs->lost || (runs->count && runs->runs[runs->count - 1].context == context))
        return;
    if (runs->count == runs->capacity) {
        size_t capacity = runs->capacity ? runs->capacity * 2 : 1024;
        struct context_run *grown = runs->count < runs->most
                                        ? realloc(runs->runs, capacity * sizeof *grown)
                                        : NULL;
        if (!grown) {
            runs->lost = true;
            return;
        }
        runs->runs = grown;
        runs->capacity = capacity;
    }
    runs->runs[runs->count++] = (struct context_run){(uint32_t)first, context};
}

/* The annotations as before the first entry, for a second pass. */
static void annotations_rewind(struct device_replay *replay)
{
    replay->annotation_next = 0;
    replay->open_annotation_count = 0;
    replay->annotation_changes = 0;
    memset(replay->contexts, 0, sizeof replay->contexts);
}

/* The runs of entries from `from` to `until` whose own part is the empty
 * string (the trace wrote no own part: the column, untouched, is not
 * read): one for the open annotations, broken by each allocation on
 * another stream. STRING_ID_NONE when memory runs out, else not. */
static uint32_t runs_without_own(struct device_replay *replay, struct runs *runs, size_t from,
                                 size_t until, size_t *next_stream)
{
    const struct ts_trace *trace = replay->trace;
    size_t streams = trace ? trace->stream_count : 0;
    uint32_t context =
        replay->open_annotation_count ? entry_context(replay, STRING_ID_EMPTY, 0) : STRING_ID_EMPTY;
    for (size_t i = from; i < until && context != STRING_ID_NONE;) {
        size_t next = *next_stream < streams && trace->streams[*next_stream].entry < until
                          ? trace->streams[*next_stream].entry
                          : until;
        if (next > i) {
            runs_add(runs, i, context);
            i = next;
            continue;
        }
        uint64_t stream = trace->streams[(*next_stream)++].stream;
        uint32_t own = entry_context(replay, STRING_ID_EMPTY, stream);
        if (own == STRING_ID_NONE)
            return own;
        runs_add(runs, i++, own);
    }
    return context;
}

/* The same for entries with own parts, read from the column: between two
 * changes of the annotations an entry's context follows from its own
 * part alone. */
static uint32_t runs_with_own(struct device_replay *replay, struct runs *runs,
                              const uint32_t *column, size_t from, size_t until,
                              size_t *next_stream)
{
    const struct ts_trace *trace = replay->trace;
    size_t streams = trace ? trace->stream_count : 0;
    bool open = replay->open_annotation_count != 0;
    uint32_t last_base = STRING_ID_NONE, last_context = STRING_ID_NONE, context = STRING_ID_EMPTY;
    for (size_t i = from; i < until; i++) {
        uint32_t base = column[i];
        context = base;
        if (*next_stream < streams && trace->streams[*next_stream].entry == i) {
            context = entry_context(replay, base, trace->streams[(*next_stream)++].stream);
        } else if (open && base == last_base) {
            context = last_context;
        } else if (open) {
            context = last_context = entry_context(replay, base, 0);
            last_base = base;
        }
        if (context == STRING_ID_NONE)
            return context;
        runs_add(runs, i, context);
    }
    return context;
}

/* The entries' contexts with the times in order, as runs: the
 * annotations are brought up to date only where the next one starts
 * (found by a search of the times). Where the runs do not pay (more
 * than a quarter of the entries), the column is written entry by entry
 * instead. false when memory runs out. */
static bool contexts_in_order(struct device_replay *replay, struct snapshot_columns *columns,
                              bool annotated)
{
    const struct ts_load *load = replay->load;
    size_t next_stream = 0, count = columns->count;
    struct runs runs = {.most = count / 4};
    for (size_t i = 0; i < count && !runs.lost;) {
        if (annotated)
            annotations_advance(replay, snapshot_columns_time(columns, i));
        size_t until = count;
        /* The next annotation's time is past entry i's: the first entry
         * at or past it comes after i. */
        if (annotated && replay->annotation_next < load->annotation_count)
            until = timeline_find_time(columns, load->annotations[replay->annotation_next].time_us);
        uint32_t made = replay->trace->own_contexts
                            ? runs_with_own(replay, &runs, columns->context, i, until, &next_stream)
                            : runs_without_own(replay, &runs, i, until, &next_stream);
        if (made == STRING_ID_NONE) {
            free(runs.runs);
            return false;
        }
        i = until;
    }
    if (runs.lost || count > UINT32_MAX) {
        free(runs.runs);
        annotations_rewind(replay);
        return contexts_by_entry(replay, columns, annotated);
    }
    free(columns->context);
    columns->context = NULL;
    columns->context_runs = runs.runs;
    columns->context_run_count = runs.count;
    return true;
}

bool ts_finish_contexts(struct device_replay *replay, struct snapshot_columns *columns)
{
    const struct ts_load *load = replay->load;
    const struct ts_trace *trace = replay->trace;
    bool annotated = false;
    for (size_t k = 0; k < load->annotation_count && !annotated; k++)
        annotated = load->annotations[k].device == replay->device;
    annotated = annotated && !load->entries_without_time;
    if (!columns->context)
        return true;
    if (!annotated && (!trace || trace->stream_count == 0))
        return snapshot_columns_compact_context(columns);
    if (trace && !trace->times_back)
        return contexts_in_order(replay, columns, annotated);
    return contexts_by_entry(replay, columns, annotated) &&
           snapshot_columns_compact_context(columns);
}
