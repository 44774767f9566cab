/* load_trace_timeline_build: timeline.py's counters and tensors become
 * allocators (see load_trace_timeline.c for the decisions). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_timeline.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/index_sort.h"
#include "model/util/integer_map.h"
#include "model/message_text.h"

/* One of timeline.py's tuples: (time, +bytes or -bytes, name). */
struct tuple {
    int64_t time_ns;
    int64_t bytes;
    uint32_t name;
    uint32_t tensor;
    bool deletes;
};

struct series_work {
    struct trace_load *load;
    struct trace_timeline *timeline;
    struct integer_map rank_of; /* series string id -> rank */
    uint32_t *names;            /* by rank */
    size_t count;
    uint32_t *counter_rank;     /* per counter */
    size_t *counter_order;      /* counters by (rank, time, file order) */
    size_t *counter_start;      /* per rank + 1: ranges of counter_order */
    struct tuple *tuples;       /* by rank, each range in append order */
    size_t *tuple_start;        /* per rank + 1 */
    uint32_t *tensor_ops;       /* per tensor: its producing node */
};

static void series_work_free(struct series_work *work)
{
    integer_map_free(&work->rank_of);
    free(work->names);
    free(work->counter_rank);
    free(work->counter_order);
    free(work->counter_start);
    free(work->tuples);
    free(work->tuple_start);
    free(work->tensor_ops);
}

static bool counter_before(const void *context, size_t a, size_t b)
{
    const struct series_work *work = context;
    if (work->counter_rank[a] != work->counter_rank[b])
        return work->counter_rank[a] < work->counter_rank[b];
    return work->timeline->counters[a].time_ns < work->timeline->counters[b].time_ns;
}

/* Series in order of first appearance; counters sorted into them. */
static bool series_find(struct series_work *work)
{
    const struct trace_timeline *timeline = work->timeline;
    size_t count = timeline->counter_count;
    work->names = malloc(count * sizeof *work->names);
    work->counter_rank = malloc(count * sizeof *work->counter_rank);
    work->counter_order = malloc(count * sizeof *work->counter_order);
    size_t *scratch = malloc(count * sizeof *scratch);
    bool ok = work->names && work->counter_rank && work->counter_order && scratch;
    for (size_t i = 0; ok && i < count; i++) {
        uint32_t series = timeline->counters[i].series;
        const uint32_t *rank = integer_map_find(&work->rank_of, series);
        if (!rank) {
            work->names[work->count] = series;
            ok = integer_map_put(&work->rank_of, series, (uint32_t)work->count++);
            rank = ok ? integer_map_find(&work->rank_of, series) : NULL;
        }
        if (ok)
            work->counter_rank[i] = *rank;
        work->counter_order[i] = i;
    }
    work->counter_start = ok ? calloc(work->count + 1, sizeof *work->counter_start) : NULL;
    ok = ok && work->counter_start;
    if (ok) {
        index_sort_stable(work->counter_order, scratch, count, counter_before, work);
        for (size_t i = 0; i < count; i++)
            work->counter_start[work->counter_rank[i] + 1]++;
        for (size_t r = 0; r < work->count; r++)
            work->counter_start[r + 1] += work->counter_start[r];
    }
    free(scratch);
    return ok;
}

/* The producing node of a tensor: its name without a trailing ":k". */
static uint32_t tensor_op(struct trace_load *load, uint32_t name)
{
    struct text whole = string_table_get(load->strings, name);
    const char *text = whole.bytes;
    size_t length = whole.length, colon = length;
    while (colon > 0 && text[colon - 1] >= '0' && text[colon - 1] <= '9')
        colon--;
    if (colon == length || colon < 2 || text[colon - 1] != ':')
        return name;
    return string_table_intern(load->strings, text, colon - 1);
}

/* Whether the tensor makes tuples: described, created, of a series. */
static const uint32_t *tensor_rank(const struct series_work *work, size_t tensor)
{
    const struct timeline_tensor *t = &work->timeline->tensors[tensor];
    return t->described && t->created ? integer_map_find(&work->rank_of, t->allocator) : NULL;
}

/* Each series' tuples, in append order: per tensor its creation, then
 * its deletion. */
static bool tuples_gather(struct series_work *work)
{
    const struct trace_timeline *timeline = work->timeline;
    size_t tensors = timeline->objects.count, total = 0;
    work->tuple_start = calloc(work->count + 1, sizeof *work->tuple_start);
    work->tensor_ops = malloc((tensors ? tensors : 1) * sizeof *work->tensor_ops);
    if (!work->tuple_start || !work->tensor_ops)
        return false;
    for (size_t i = 0; i < tensors; i++) {
        const uint32_t *rank = tensor_rank(work, i);
        size_t made = rank ? 1 + timeline->tensors[i].deleted : 0;
        if (rank)
            work->tuple_start[*rank + 1] += made;
        total += made;
    }
    for (size_t r = 0; r < work->count; r++)
        work->tuple_start[r + 1] += work->tuple_start[r];
    work->tuples = malloc((total ? total : 1) * sizeof *work->tuples);
    size_t *next = malloc((work->count ? work->count : 1) * sizeof *next);
    bool ok = work->tuples && next;
    if (ok)
        memcpy(next, work->tuple_start, work->count * sizeof *next);
    for (size_t i = 0; ok && i < tensors; i++) {
        const uint32_t *rank = tensor_rank(work, i);
        const struct timeline_tensor *t = &timeline->tensors[i];
        if (!rank)
            continue;
        work->tensor_ops[i] = tensor_op(work->load, t->name);
        ok = work->tensor_ops[i] != STRING_ID_NONE;
        work->tuples[next[*rank]++] =
            (struct tuple){t->create_ns, t->requested_bytes, t->name, (uint32_t)i, false};
        if (t->deleted)
            work->tuples[next[*rank]++] =
                (struct tuple){t->delete_ns, -t->requested_bytes, t->name, (uint32_t)i, true};
    }
    free(next);
    return ok;
}

/* Python's order of (time, bytes, name) tuples; names bytewise. */
static bool tuple_before(const void *context, size_t a, size_t b)
{
    const struct series_work *work = ((const void *const *)context)[0];
    const struct tuple *tuples = ((const void *const *)context)[1];
    const struct tuple *x = &tuples[a], *y = &tuples[b];
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes;
    return string_table_compare(work->load->strings, x->name, y->name) < 0;
}

/* Sorts the tuples of one series in place (stably). */
static bool tuples_sort(struct series_work *work, struct tuple *tuples, size_t count)
{
    const void *context[2] = {work, tuples};
    size_t *order = index_sort_order(count, tuple_before, context);
    struct tuple *sorted = malloc((count ? count : 1) * sizeof *sorted);
    bool ok = order && sorted;
    if (ok) {
        for (size_t i = 0; i < count; i++)
            sorted[i] = tuples[order[i]];
        memcpy(tuples, sorted, count * sizeof *sorted);
    }
    free(order);
    free(sorted);
    return ok;
}

/* How many leading counters the tuples made: counts and running totals
 * agree up to there. */
static size_t tuples_paired(const struct series_work *work, const struct tuple *tuples,
                            size_t tuple_count, const size_t *counters, size_t counter_count)
{
    int64_t total = 0;
    size_t paired = 0;
    while (paired < tuple_count && paired < counter_count) {
        total += tuples[paired].bytes;
        if (total != work->timeline->counters[counters[paired]].value)
            break;
        paired++;
    }
    return paired;
}

static bool warn_unpaired(struct trace_load *load, uint32_t series, size_t counters,
                          size_t tuples, size_t paired)
{
    /* The name raw, NUL bytes and all: whoever shows the warning escapes it. */
    char line[LOAD_ERROR_SIZE];
    struct message_text message;
    message_text_start(&message, line, sizeof line);
    message_text_append_text(&message, "allocator \"");
    message_text_append_cut(&message, string_table_get(load->strings, series), 64);
    message_text_append_format(&message,
                               "\": %zu Memory counters, %zu tensor events; only the first %zu "
                               "match, the rest have no tensor",
                               counters, tuples, paired);
    return profile_builder_add_warning_bytes(load->builder, message_text_get(&message));
}

static struct snapshot series_snapshot(struct series_work *work, const struct tuple *tuple,
                                       const struct timeline_counter *counter, uint32_t region)
{
    struct snapshot snapshot = {
        .time_ps = trace_load_time_ps(work->load, counter->time_ns),
        .heap_bytes = counter->value,
        .step_id = -1,
    };
    if (!tuple)
        return snapshot;
    const struct timeline_tensor *tensor = &work->timeline->tensors[tuple->tensor];
    snapshot.activity = tuple->deletes ? MEMORY_ACTIVITY_DEALLOCATION : MEMORY_ACTIVITY_ALLOCATION;
    snapshot.requested_bytes = snapshot.allocation_bytes = tensor->requested_bytes;
    snapshot.address = tensor->address;
    snapshot.op_name = work->tensor_ops[tuple->tensor];
    snapshot.region_type = region;
    snapshot.data_type = tensor->data_type;
    snapshot.tensor_shape = tensor->shape;
    return snapshot;
}

/* timeline.py's set at the peak: a tuple with bytes < 0 removes its name,
 * any other adds it (a creation replaces the row behind the name, a
 * zero-byte deletion keeps it). */
static bool series_rows(struct trace_load *load, size_t allocator, const struct tuple *tuples,
                        size_t end, size_t peak)
{
    struct integer_map live = {0};
    bool ok = true;
    for (size_t k = 0; ok && k < end && k <= peak; k++) {
        if (tuples[k].bytes < 0)
            integer_map_remove(&live, tuples[k].name, NULL);
        else if (!tuples[k].deletes || !integer_map_find(&live, tuples[k].name))
            ok = integer_map_put(&live, tuples[k].name, (uint32_t)k);
    }
    uint32_t *indices = ok ? malloc((live.count ? live.count : 1) * sizeof *indices) : NULL;
    size_t count = 0;
    for (size_t slot = 0; indices && slot < live.capacity; slot++)
        if (live.slots[slot].used)
            indices[count++] = live.slots[slot].value;
    ok = indices && trace_add_peak_rows(load, allocator, indices, count, peak, false);
    free(indices);
    integer_map_free(&live);
    return ok;
}

static bool series_build(struct series_work *work, size_t rank, uint32_t region)
{
    struct trace_load *load = work->load;
    struct tuple *tuples = work->tuples + work->tuple_start[rank];
    size_t tuple_count = work->tuple_start[rank + 1] - work->tuple_start[rank];
    const size_t *counters = work->counter_order + work->counter_start[rank];
    size_t counter_count = work->counter_start[rank + 1] - work->counter_start[rank];
    uint32_t series = work->names[rank];
    size_t allocator;
    struct text name = string_table_get(load->strings, series);
    if (!tuples_sort(work, tuples, tuple_count) ||
        !trace_new_allocator(load, name.bytes, name.length, &allocator))
        return false;
    size_t paired = tuples_paired(work, tuples, tuple_count, counters, counter_count);
    if ((paired < counter_count || tuple_count != counter_count) &&
        !warn_unpaired(load, series, counter_count, tuple_count, paired))
        return false;
    int64_t running_max = INT64_MIN;
    for (size_t k = 0; k < counter_count; k++) {
        const struct timeline_counter *counter = &work->timeline->counters[counters[k]];
        struct snapshot snapshot =
            series_snapshot(work, k < paired ? &tuples[k] : NULL, counter, region);
        running_max = counter->value > running_max ? counter->value : running_max;
        snapshot.peak_bytes_in_use = running_max;
        if (!profile_builder_append_snapshot(load->builder, allocator, &snapshot))
            return false;
    }
    profile_builder_set_unknown_fields(load->builder, allocator,
                                       ALLOCATOR_FIELD_STACK | ALLOCATOR_FIELD_FREE |
                                           ALLOCATOR_FIELD_FRAGMENTATION |
                                           ALLOCATOR_FIELD_CAPACITY);
    size_t peak = trace_set_first_peak_summary(load, allocator);
    return series_rows(load, allocator, tuples, paired, peak);
}

enum load_status trace_timeline_build(struct trace_load *load, struct trace_timeline *timeline)
{
    if (timeline->counter_count == 0)
        return LOAD_OK;
    struct series_work work = {.load = load, .timeline = timeline};
    uint32_t region = string_table_intern(load->strings, "output", 6);
    bool ok = region != STRING_ID_NONE && series_find(&work) && tuples_gather(&work);
    for (size_t rank = 0; ok && rank < work.count; rank++)
        ok = series_build(&work, rank, region);
    series_work_free(&work);
    return ok ? LOAD_OK : trace_load_no_memory(load);
}
