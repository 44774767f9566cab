/* oracle_profile: XProf's memory profile of the host events, simulated
 * (docs/formats/xspace.md; openxla/xprof xprof/convert/
 * xplane_to_memory_profile.cc, as read for this tool), and the
 * expectations file it becomes. See oracle.h. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/oracle.h"
#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/formats/xspace/xspace_gen/wire.h"

struct snapshot {
    int64_t time;
    int64_t stack, heap, free_bytes, peak_bytes_in_use;
    double fragmentation;
    bool allocation;
    int64_t requested, allocation_bytes, address;
    uint32_t op, region, data_type, shape;
    int64_t step; /* the group, -1 without one; fixed by update_step_ids */
    uint64_t walk;
};

struct summary {
    int64_t lifetime;
    int64_t stack, heap, free_bytes, peak_bytes_in_use;
    double fragmentation;
    int64_t time;
    int64_t capacity;
};

struct profile {
    uint32_t memory_id;
    struct snapshot *snapshots;
    uint64_t count, capacity;
    uint64_t allocations, deallocations;
    struct summary summary;
};

struct row {
    uint32_t op, region, data_type, shape;
    int64_t allocation_bytes, requested;
    int64_t occurrences;
};

static int64_t add_wrapping(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* ---- reading a memory event ---- */

static const char *const data_type_names[] = {
    "INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string", "complex64",
    "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16",
    "complex128", "half", "resource", "variant", "uint32", "uint64", "float8_e5m2",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "int4", "uint4",
};

static void data_type_base(int32_t value, char *out, size_t size)
{
    if (value >= 0 && value < (int32_t)(sizeof data_type_names / sizeof data_type_names[0]))
        snprintf(out, size, "%s", data_type_names[value]);
    else
        snprintf(out, size, "unknown dtype enum (%" PRId32 ")", value);
}

/* DataTypeString of the value taken as a 32-bit enum; above 100, the
 * name of value - 100 and "_ref". */
static uint32_t data_type_string(int64_t stat_value)
{
    int32_t value = (int32_t)(uint32_t)(uint64_t)stat_value;
    char text[64];
    if (value > 100) {
        data_type_base(value - 100, text, sizeof text - 4);
        strcat(text, "_ref");
    } else {
        data_type_base(value, text, sizeof text);
    }
    return string_c(text);
}

/* One memory event's snapshot and memory id: every stat in order, the
 * last of a kind wins, each read by its field's rule. */
static struct snapshot read_snapshot(const struct plane *plane, const struct host_event *event,
                                     bool allocation, int64_t group, uint32_t *memory_id)
{
    struct snapshot snapshot = {.time = event->offset_ps, .allocation = allocation, .step = group};
    *memory_id = 0;
    for (uint32_t i = 0; i < event->stat_count; i++) {
        const struct stat_item *stat = &event->stats[i];
        bool found;
        uint32_t name = oracle_stat_name(plane, stat, &found);
        if (!found)
            continue;
        if (string_is(name, "index_on_host") || string_is(name, "device_ordinal"))
            *memory_id = string_printf("%" PRId64, read_int(stat));
        else if (string_is(name, "allocator_name"))
            *memory_id = read_string(plane, stat);
        else if (string_is(name, "bytes_reserved"))
            snapshot.stack = read_int(stat);
        else if (string_is(name, "bytes_allocated"))
            snapshot.heap = read_int(stat);
        else if (string_is(name, "bytes_available"))
            snapshot.free_bytes = read_int(stat);
        else if (string_is(name, "fragmentation"))
            snapshot.fragmentation = read_double(stat);
        else if (string_is(name, "peak_bytes_in_use"))
            snapshot.peak_bytes_in_use = read_int(stat);
        else if (string_is(name, "requested_bytes"))
            snapshot.requested = read_int(stat);
        else if (string_is(name, "allocation_bytes"))
            snapshot.allocation_bytes = read_int(stat);
        else if (string_is(name, "addr"))
            snapshot.address = read_int(stat);
        else if (string_is(name, "tf_op"))
            snapshot.op = read_string(plane, stat);
        else if (string_is(name, "region_type"))
            snapshot.region = read_string(plane, stat);
        else if (string_is(name, "data_type"))
            snapshot.data_type = data_type_string(read_int(stat));
        else if (string_is(name, "shape"))
            snapshot.shape = read_string(plane, stat);
    }
    return snapshot;
}

/* Whether the event has a tf_op stat that counts (memtop names the
 * others: oracle_attribution.c). */
static bool has_tf_op(const struct plane *plane, const struct host_event *event)
{
    for (uint32_t i = 0; i < event->stat_count; i++) {
        bool found;
        uint32_t name = oracle_stat_name(plane, &event->stats[i], &found);
        if (found && string_is(name, "tf_op"))
            return true;
    }
    return false;
}

/* ---- per allocator ---- */

static struct profile *profile_for(struct profile **profiles, uint64_t *count, uint32_t memory_id)
{
    for (uint64_t i = 0; i < *count; i++)
        if ((*profiles)[i].memory_id == memory_id)
            return &(*profiles)[i];
    *profiles = xrealloc(*profiles, *count + 1, sizeof **profiles);
    struct profile *profile = &(*profiles)[(*count)++];
    *profile = (struct profile){.memory_id = memory_id};
    return profile;
}

/* In walk order: the lifetime peak is the last event's; the peak is the
 * last event whose stack + heap reaches the largest so far (>=, from 0). */
static void update_summary(struct summary *summary, const struct snapshot *snapshot)
{
    summary->lifetime = snapshot->peak_bytes_in_use;
    int64_t in_use = add_wrapping(snapshot->stack, snapshot->heap);
    if (in_use >= summary->peak_bytes_in_use) {
        summary->stack = snapshot->stack;
        summary->heap = snapshot->heap;
        summary->free_bytes = snapshot->free_bytes;
        summary->fragmentation = snapshot->fragmentation;
        summary->peak_bytes_in_use = in_use;
        summary->time = snapshot->time;
        summary->capacity = add_wrapping(in_use, snapshot->free_bytes);
    }
}

static int time_compare(const void *a, const void *b)
{
    const struct snapshot *left = a, *right = b;
    if (left->time != right->time)
        return left->time < right->time ? -1 : 1;
    return (left->walk > right->walk) - (left->walk < right->walk);
}

/* XProf sorts by time with an unstable sort: equal times have no defined
 * order. The answer is still defined when such events are in one step
 * (or none) and at distinct addresses; otherwise refuse. */
static bool time_sort(struct profile *profile)
{
    if (profile->count > 1)
        qsort(profile->snapshots, profile->count, sizeof *profile->snapshots, time_compare);
    for (uint64_t i = 1; i < profile->count; i++) {
        const struct snapshot *a = &profile->snapshots[i - 1], *b = &profile->snapshots[i];
        if (a->time == b->time && (a->step != b->step || a->address == b->address)) {
            fprintf(stderr, "generate_xspace: --expect: two memory events share time %" PRId64
                            " in a way XProf's unstable sort leaves undefined\n", a->time);
            return false;
        }
    }
    return true;
}

/* A snapshot without a group takes the last group seen + 1 (0 at first). */
static void update_step_ids(struct profile *profile)
{
    int64_t last = -1;
    for (uint64_t i = 0; i < profile->count; i++) {
        if (profile->snapshots[i].step == -1)
            profile->snapshots[i].step = last + 1;
        else
            last = profile->snapshots[i].step;
    }
}

static int64_t peak_step(const struct profile *profile)
{
    int64_t step = 0;
    for (uint64_t i = 0; i < profile->count; i++) {
        const struct snapshot *snapshot = &profile->snapshots[i];
        if (add_wrapping(snapshot->stack, snapshot->heap) == profile->summary.peak_bytes_in_use)
            step = snapshot->step;
    }
    return step;
}

/* ---- the table at the peak ---- */

/* Live allocations by address: a small open-addressing map (address ->
 * snapshot index + 1; tombstones when erased). */
struct live_map {
    int64_t *addresses;
    uint64_t *values; /* 0 empty, UINT64_MAX erased, else index + 1 */
    uint64_t size;
};

static uint64_t *live_slot(struct live_map *map, int64_t address, bool for_insert)
{
    uint64_t mask = map->size - 1;
    uint64_t slot = ((uint64_t)address * UINT64_C(0x9e3779b97f4a7c15)) >> 7 & mask;
    uint64_t *first_free = NULL;
    while (map->values[slot] != 0) {
        if (map->values[slot] == UINT64_MAX) {
            if (first_free == NULL)
                first_free = &map->values[slot];
        } else if (map->addresses[slot] == address) {
            return &map->values[slot];
        }
        slot = (slot + 1) & mask;
    }
    if (!for_insert)
        return NULL;
    uint64_t *chosen = first_free != NULL ? first_free : &map->values[slot];
    map->addresses[chosen - map->values] = address;
    return chosen;
}

/* memtop's temp or output (oracle_attribution.c): a free matched to the
 * first open allocation at its address, as memtop matches them, settles
 * an execution buffer; one never freed is an output. */
static void settle_buffers(struct profile *profile)
{
    uint32_t buffer = string_c("temp or output"), freed = string_c("freed in execution");
    uint32_t temp = string_c("temp"), output = string_c("output");
    struct live_map map = {.size = 64};
    while (map.size < profile->count * 2)
        map.size *= 2;
    map.addresses = xcalloc(map.size, sizeof *map.addresses);
    map.values = xcalloc(map.size, sizeof *map.values);
    for (uint64_t i = 0; i < profile->count; i++) {
        struct snapshot *snapshot = &profile->snapshots[i];
        uint64_t *slot = live_slot(&map, snapshot->address, false);
        if (!snapshot->allocation) {
            if (slot == NULL)
                continue;
            struct snapshot *allocated = &profile->snapshots[*slot - 1];
            if (allocated->region == buffer)
                allocated->region = snapshot->region == freed ? temp : output;
            *slot = UINT64_MAX;
        } else if (slot == NULL) {
            *live_slot(&map, snapshot->address, true) = i + 1;
        }
    }
    for (uint64_t i = 0; i < profile->count; i++)
        if (profile->snapshots[i].region == buffer)
            profile->snapshots[i].region = output;
    free(map.addresses);
    free(map.values);
}

static int compare_int_descending(int64_t a, int64_t b)
{
    return a > b ? -1 : a < b ? 1 : 0;
}

static int row_compare(const void *a, const void *b)
{
    const struct row *left = a, *right = b;
    int order = compare_int_descending(left->allocation_bytes, right->allocation_bytes);
    if (order == 0)
        order = compare_int_descending(left->requested, right->requested);
    if (order == 0)
        order = string_compare(left->op, right->op);
    if (order == 0)
        order = string_compare(left->region, right->region);
    if (order == 0)
        order = string_compare(left->data_type, right->data_type);
    if (order == 0)
        order = string_compare(left->shape, right->shape);
    return order;
}

static struct row snapshot_row(const struct snapshot *snapshot)
{
    return (struct row){snapshot->op, snapshot->region, snapshot->data_type, snapshot->shape,
                        snapshot->allocation_bytes, snapshot->requested, 1};
}

static struct row special_row(const char *op, const char *region, int64_t bytes)
{
    return (struct row){string_c(op), string_c(region), string_c("INVALID"),
                        string_c("unknown"), bytes, bytes, 1};
}

/* The rows, sorted and merged; returns their count. */
static uint64_t peak_rows(const struct profile *profile, int64_t step, struct row **rows_out)
{
    struct live_map map = {.size = 64};
    while (map.size < profile->count * 2)
        map.size *= 2;
    map.addresses = xcalloc(map.size, sizeof *map.addresses);
    map.values = xcalloc(map.size, sizeof *map.values);
    int64_t unmapped = profile->summary.heap, unmatched = 0;
    for (uint64_t i = 0; i < profile->count; i++) {
        const struct snapshot *snapshot = &profile->snapshots[i];
        if (snapshot->time > profile->summary.time)
            break;
        if (snapshot->step != step)
            continue;
        if (snapshot->allocation) {
            *live_slot(&map, snapshot->address, true) = i + 1;
            unmapped = add_wrapping(unmapped, -snapshot->allocation_bytes);
        } else {
            uint64_t *slot = live_slot(&map, snapshot->address, false);
            if (slot != NULL)
                *slot = UINT64_MAX;
            else
                unmatched = add_wrapping(unmatched, snapshot->allocation_bytes);
            unmapped = add_wrapping(unmapped, snapshot->allocation_bytes);
        }
    }
    unmapped = add_wrapping(unmapped, -unmatched);
    struct row *rows = xcalloc(map.size + 2, sizeof *rows);
    uint64_t count = 0;
    for (uint64_t s = 0; s < map.size; s++)
        if (map.values[s] != 0 && map.values[s] != UINT64_MAX)
            rows[count++] = snapshot_row(&profile->snapshots[map.values[s] - 1]);
    if (unmapped > 0)
        rows[count++] = special_row("unused preallocated device memory", "persist/dynamic",
                                    unmapped);
    if (profile->summary.stack > 0)
        rows[count++] = special_row("stack", "stack", profile->summary.stack);
    free(map.addresses);
    free(map.values);
    if (count > 1)
        qsort(rows, count, sizeof *rows, row_compare);
    uint64_t merged = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (merged > 0 && row_compare(&rows[merged - 1], &rows[i]) == 0)
            rows[merged - 1].occurrences++;
        else
            rows[merged++] = rows[i];
    }
    *rows_out = rows;
    return merged;
}

/* ---- output ---- */

/* Bytes outside 0x21..0x7e, '%' and '"' as %XX; the empty string as "". */
static void put_text(FILE *out, uint32_t string)
{
    struct text text = string_text(string);
    if (text.size == 0) {
        fputs("\"\"", out);
        return;
    }
    for (size_t i = 0; i < text.size; i++) {
        uint8_t byte = text.data[i];
        if (byte <= 0x20 || byte >= 0x7f || byte == '%' || byte == '"')
            fprintf(out, "%%%02X", byte);
        else
            fputc(byte, out);
    }
}

static int profile_compare(const void *a, const void *b)
{
    const struct profile *left = a, *right = b;
    return string_compare(left->memory_id, right->memory_id);
}

/* The fixed step ids in time order, run-length encoded (step*count), and
 * the FNV-1a 64 hash of their decimal texts, each followed by '\n'. */
static void write_steps(FILE *out, const struct profile *profile)
{
    const struct snapshot *snapshots = profile->snapshots;
    uint64_t runs = 0;
    for (uint64_t i = 0; i < profile->count; i++)
        runs += i == 0 || snapshots[i].step != snapshots[i - 1].step;
    fprintf(out, "steps %" PRIu64, runs);
    for (uint64_t i = 0; i < profile->count;) {
        uint64_t run = 1;
        while (i + run < profile->count && snapshots[i + run].step == snapshots[i].step)
            run++;
        fprintf(out, " %" PRId64 "*%" PRIu64, snapshots[i].step, run);
        i += run;
    }
    uint64_t hash = UINT64_C(14695981039346656037);
    for (uint64_t i = 0; i < profile->count; i++) {
        char text[32];
        int size = snprintf(text, sizeof text, "%" PRId64 "\n", snapshots[i].step);
        for (int c = 0; c < size; c++)
            hash = (hash ^ (uint8_t)text[c]) * UINT64_C(1099511628211);
    }
    fprintf(out, "\nsteps_fnv1a64 %016" PRIx64 "\n", hash);
}

static void write_profile(FILE *out, const struct profile *profile)
{
    const struct summary *summary = &profile->summary;
    int64_t step = peak_step(profile);
    fputs("allocator ", out);
    put_text(out, profile->memory_id);
    fprintf(out,
            "\nsnapshots %" PRIu64 "\nallocations %" PRIu64 "\ndeallocations %" PRIu64
            "\nmemory_capacity %" PRId64 "\npeak_bytes_usage_lifetime %" PRId64
            "\npeak_bytes_in_use %" PRId64 "\npeak_stats_time_ps %" PRId64
            "\nstack_reserved_bytes %" PRId64 "\nheap_allocated_bytes %" PRId64
            "\nfree_memory_bytes %" PRId64 "\nfragmentation %.17g\npeak_step %" PRId64 "\n",
            profile->count, profile->allocations, profile->deallocations, summary->capacity,
            summary->lifetime, summary->peak_bytes_in_use, summary->time, summary->stack,
            summary->heap, summary->free_bytes, summary->fragmentation, step);
    write_steps(out, profile);
    struct row *rows = NULL;
    uint64_t count = peak_rows(profile, step, &rows);
    fprintf(out, "rows %" PRIu64 "\n", count);
    for (uint64_t i = 0; i < count; i++) {
        fputs("row ", out);
        put_text(out, rows[i].op);
        fprintf(out, " %" PRId64 " %" PRId64 " %" PRId64 " ", rows[i].allocation_bytes,
                rows[i].requested, rows[i].occurrences);
        put_text(out, rows[i].region);
        fputc(' ', out);
        put_text(out, rows[i].data_type);
        fputc(' ', out);
        put_text(out, rows[i].shape);
        fputc('\n', out);
    }
    free(rows);
    fputs("end_allocator\n", out);
}

bool oracle_write(struct oracle *oracle, FILE *out, const char *file_name)
{
    uint64_t count = 0;
    struct host_event *events = oracle_host_events(oracle, &count);
    int64_t *groups = xcalloc(count, sizeof *groups);
    int64_t group_count = oracle->host != NULL
                              ? oracle_group(oracle->host, events, count, oracle->loop_ops, groups)
                              : 0;
    bool ok = group_count >= 0;
    bool *unnamed = xcalloc(count + 1, sizeof *unnamed);
    struct oracle_name *names = xcalloc(count + 1, sizeof *names);
    for (uint64_t i = 0; i < count; i++)
        unnamed[i] = (string_is(events[i].name, "MemoryAllocation") ||
                      string_is(events[i].name, "MemoryDeallocation")) &&
                     !has_tf_op(oracle->host, &events[i]);
    if (oracle->host != NULL)
        oracle_attribute(oracle->host, events, count, unnamed, names);
    struct profile *profiles = NULL;
    uint64_t profile_count = 0;
    for (uint64_t i = 0; i < count && ok; i++) {
        bool allocation = string_is(events[i].name, "MemoryAllocation");
        if (!allocation && !string_is(events[i].name, "MemoryDeallocation"))
            continue;
        uint32_t memory_id;
        struct snapshot snapshot = read_snapshot(oracle->host, &events[i], allocation, groups[i],
                                                 &memory_id);
        if (names[i].attributed) {
            snapshot.op = names[i].op;
            snapshot.region = allocation ? names[i].region
                              : names[i].in_execution ? string_c("freed in execution")
                                                      : 0;
        }
        struct profile *profile = profile_for(&profiles, &profile_count, memory_id);
        snapshot.walk = profile->count;
        update_summary(&profile->summary, &snapshot);
        if (profile->count == profile->capacity) {
            profile->capacity = profile->capacity ? profile->capacity * 2 : 1024;
            profile->snapshots =
                xrealloc(profile->snapshots, profile->capacity, sizeof *profile->snapshots);
        }
        profile->snapshots[profile->count++] = snapshot;
        if (allocation)
            profile->allocations++;
        else
            profile->deallocations++;
    }
    if (profile_count > 1)
        qsort(profiles, profile_count, sizeof *profiles, profile_compare);
    for (uint64_t p = 0; p < profile_count && ok; p++) {
        ok = time_sort(&profiles[p]);
        update_step_ids(&profiles[p]);
        settle_buffers(&profiles[p]);
    }
    if (ok) {
        fprintf(out, "# generate_xspace expectations for %s: what XProf's memory_profile tool\n"
                     "# reports for it (format: generate_xspace --help)\n",
                file_name);
        fprintf(out, "xspace_expect 1\nnum_hosts 1\nversion 1\nstep_grouping %s\nstep_groups %" PRId64
                     "\nmemory_ids %" PRIu64,
                oracle->loop_ops ? "off" : "on", group_count, profile_count);
        for (uint64_t p = 0; p < profile_count; p++) {
            fputc(' ', out);
            put_text(out, profiles[p].memory_id);
        }
        fputc('\n', out);
        for (uint64_t p = 0; p < profile_count; p++)
            write_profile(out, &profiles[p]);
        fprintf(out, "hlo_modules %" PRIu64 "\n", oracle->hlo_count);
        for (uint64_t i = 0; i < oracle->hlo_count; i++) {
            const struct hlo_module *module = &oracle->hlo[i];
            fprintf(out, "hlo %" PRIu64 " ", i);
            put_text(out, module->name);
            fputc(' ', out);
            put_text(out, module->plane_name);
            fprintf(out, " %" PRId64 " %" PRId64 "\n", module->start_ps, module->end_ps);
        }
        fputs("end\n", out);
    }
    for (uint64_t p = 0; p < profile_count; p++)
        free(profiles[p].snapshots);
    free(profiles);
    free(groups);
    free(unnamed);
    free(names);
    free(events);
    return ok;
}
