/* oracle: what it keeps while the file is written, and how XProf reads a
 * stat (openxla/xla xla/tsl/profiler/utils/xplane_visitor.h, as read for
 * this tool). See oracle.h. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/oracle.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/formats/xspace/xspace_gen/wire.h"

/* ---- XStatVisitor's readings ---- */

uint32_t oracle_stat_name(const struct plane *plane, const struct stat_item *stat, bool *found)
{
    return metadata_name(&plane->stat_metadata, stat->key, found);
}

/* IntValue: the int64 member; a stat of another kind reads 0. */
int64_t read_int(const struct stat_item *stat)
{
    return stat->kind == STAT_INT64 ? (int64_t)stat->bits : 0;
}

/* IntOrUintValue: the uint64 member for a uint64 stat, else IntValue. */
uint64_t read_int_or_uint(const struct stat_item *stat)
{
    return stat->kind == STAT_UINT64 ? stat->bits : (uint64_t)read_int(stat);
}

/* DoubleValue: the double member; a stat of another kind reads 0.0. */
double read_double(const struct stat_item *stat)
{
    return stat->kind == STAT_DOUBLE ? stat_double_value(stat) : 0.0;
}

/* StrOrRefValue: the str member, or the name of the stat metadata a ref
 * points at (empty when there is none); other kinds read empty. */
uint32_t read_string(const struct plane *plane, const struct stat_item *stat)
{
    if (stat->kind == STAT_STR)
        return (uint32_t)stat->bits;
    if (stat->kind == STAT_REF) {
        bool found;
        return metadata_name(&plane->stat_metadata, stat->bits, &found);
    }
    return 0;
}

/* ---- recording ---- */

static void record(struct recorded_events *into, uint32_t line, const struct xevent *event,
                   const struct stat_item *stats, uint32_t stat_count)
{
    if (into->count == into->capacity) {
        into->capacity = into->capacity ? into->capacity * 2 : 4096;
        into->events = xrealloc(into->events, into->capacity, sizeof *into->events);
    }
    while (into->stat_count + stat_count > into->stat_capacity) {
        into->stat_capacity = into->stat_capacity ? into->stat_capacity * 2 : 16384;
        into->stats = xrealloc(into->stats, into->stat_capacity, sizeof *into->stats);
    }
    if (stat_count != 0)
        memcpy(into->stats + into->stat_count, stats, stat_count * sizeof *stats);
    into->events[into->count++] = (struct recorded_event){
        .line = line,
        .use_num_occurrences = event->use_num_occurrences,
        .metadata_key = event->metadata_key,
        .offset_ps = event->offset_ps,
        .duration_ps = event->duration_ps,
        .first_stat = into->stat_count,
        .stat_count = stat_count,
    };
    into->stat_count += stat_count;
}

static void recorded_free(struct recorded_events *events)
{
    free(events->events);
    free(events->stats);
    *events = (struct recorded_events){0};
}

static void observe_event(void *context, const struct plane *plane, uint32_t line_index,
                          const struct xevent *event, const struct stat_item *stats,
                          uint32_t stat_count)
{
    struct oracle *oracle = context;
    if (string_is(plane->name, "/host:CPU") && oracle->host == NULL) {
        uint32_t slot = 0;
        while (slot < oracle->host_candidate_count && oracle->host_candidates[slot] != plane)
            slot++;
        if (slot == oracle->host_candidate_count) {
            if (slot == 4)
                fatal("--expect: too many /host:CPU planes");
            oracle->host_candidates[oracle->host_candidate_count++] = plane;
        }
        record(&oracle->host_events[slot], line_index, event, stats, stat_count);
    }
    if (string_is(plane->lines[line_index].name, "XLA Modules")) {
        if (oracle->modules_plane != plane) {
            oracle->modules.count = oracle->modules.stat_count = 0;
            oracle->modules_plane = plane;
        }
        record(&oracle->modules, line_index, event, NULL, 0);
    }
}

/* GroupTfEvents' CheckLoopOp: any plane's event metadata. */
static bool has_loop_ops(const struct plane *plane)
{
    static const char *const loop_names[] = {"WhileOp-EvalCond", "WhileOp-StartBody", "ForOp",
                                             "ParallelForOp", "ForeverOp"};
    for (uint32_t i = 0; i < plane->event_metadata.count; i++)
        for (size_t n = 0; n < sizeof loop_names / sizeof loop_names[0]; n++)
            if (plane->event_metadata.entries[i].has_name &&
                string_is(plane->event_metadata.entries[i].name, loop_names[n]))
                return true;
    return false;
}

/* HLO modules: planes named /device:TPU:*, their lines named XLA Modules,
 * in file order; name from the event metadata, start = offset, end =
 * offset + duration, plane name without "/device:". */
static void take_modules(struct oracle *oracle, const struct plane *plane)
{
    if (oracle->modules_plane != plane)
        return;
    if (string_starts_with(plane->name, "/device:TPU:")) {
        struct text name = string_text(plane->name);
        uint32_t short_name = string_intern(name.data + 8, name.size - 8);
        for (uint64_t i = 0; i < oracle->modules.count; i++) {
            const struct recorded_event *event = &oracle->modules.events[i];
            bool found;
            uint32_t module = metadata_name(&plane->event_metadata, event->metadata_key, &found);
            int64_t start = event->use_num_occurrences ? 0 : event->offset_ps;
            if (oracle->hlo_count == oracle->hlo_capacity) {
                oracle->hlo_capacity = oracle->hlo_capacity ? oracle->hlo_capacity * 2 : 64;
                oracle->hlo = xrealloc(oracle->hlo, oracle->hlo_capacity, sizeof *oracle->hlo);
            }
            oracle->hlo[oracle->hlo_count++] = (struct hlo_module){
                module, short_name, start, (int64_t)((uint64_t)start + (uint64_t)event->duration_ps)};
        }
    }
    oracle->modules.count = oracle->modules.stat_count = 0;
    oracle->modules_plane = NULL;
}

static void observe_plane(void *context, const struct plane *plane)
{
    struct oracle *oracle = context;
    oracle->loop_ops = oracle->loop_ops || has_loop_ops(plane);
    take_modules(oracle, plane);
    for (uint32_t slot = 0; slot < oracle->host_candidate_count; slot++) {
        if (oracle->host_candidates[slot] != plane)
            continue;
        if (oracle->host == NULL) {
            oracle->host = plane;
            oracle->host_chosen = oracle->host_events[slot];
            oracle->host_events[slot] = (struct recorded_events){0};
        }
        recorded_free(&oracle->host_events[slot]);
        oracle->host_candidates[slot] = oracle->host_candidates[--oracle->host_candidate_count];
        oracle->host_events[slot] = oracle->host_events[oracle->host_candidate_count];
        oracle->host_events[oracle->host_candidate_count] = (struct recorded_events){0};
        break;
    }
    /* A /host:CPU plane without events is still the first one. */
    if (oracle->host == NULL && string_is(plane->name, "/host:CPU"))
        oracle->host = plane;
}

void oracle_init(struct oracle *oracle)
{
    *oracle = (struct oracle){0};
    oracle->observer = (struct xspace_observer){oracle, observe_event, observe_plane};
}

void oracle_free(struct oracle *oracle)
{
    for (uint32_t i = 0; i < 4; i++)
        recorded_free(&oracle->host_events[i]);
    recorded_free(&oracle->host_chosen);
    recorded_free(&oracle->modules);
    free(oracle->hlo);
    *oracle = (struct oracle){0};
}

/* The host plane's events in file order (lines in order, each line's
 * events in order), as XProf's visitor sees them. The recording is in
 * encoding order, step by step: a stable sort by line restores the
 * file's. */
struct host_event *oracle_host_events(const struct oracle *oracle, uint64_t *count)
{
    const struct recorded_events *recorded = &oracle->host_chosen;
    const struct plane *plane = oracle->host;
    uint32_t lines = plane != NULL ? plane->line_count : 0;
    uint64_t *start = xcalloc((size_t)lines + 1, sizeof *start);
    for (uint64_t i = 0; i < recorded->count; i++)
        start[recorded->events[i].line + 1]++;
    for (uint32_t l = 0; l < lines; l++)
        start[l + 1] += start[l];
    struct host_event *events = xcalloc(recorded->count, sizeof *events);
    for (uint64_t i = 0; i < recorded->count; i++) {
        const struct recorded_event *event = &recorded->events[i];
        const struct line *line = &plane->lines[event->line];
        bool found;
        int64_t offset = event->use_num_occurrences ? 0 : event->offset_ps;
        int64_t begin = (int64_t)((uint64_t)line->timestamp_ns * 1000 + (uint64_t)offset);
        events[start[event->line]++] = (struct host_event){
            .line = event->line,
            .name = metadata_name(&plane->event_metadata, event->metadata_key, &found),
            .begin_ps = begin,
            .end_ps = (int64_t)((uint64_t)begin + (uint64_t)event->duration_ps),
            .offset_ps = offset,
            .stats = recorded->stats + event->first_stat,
            .stat_count = event->stat_count,
        };
    }
    free(start);
    *count = recorded->count;
    return events;
}
