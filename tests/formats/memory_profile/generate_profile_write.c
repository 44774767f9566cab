/* generate_profile_write: writing the profile (tests/generate_profile).
 *
 * One allocator at a time as binary protobuf or JSON (summary, active
 * allocations, special rows, sampled timeline or, for version 0, the whole
 * timeline streamed), then the profile-level fields after the map: HLO
 * modules, num_hosts, memory_ids and version. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"

/* ---- writing one allocator ---- */

/* snapshot_index as written: the file position in version 0, the position
 * among the row snapshots in version 1. */
int64_t row_snapshot_index(const struct writer *writer, const struct allocator_config *config,
                                  const struct analysis *analysis, size_t row_number)
{
    const struct row *row = &analysis->rows[row_number];
    if (row->special >= 0)
        return -1 - row->special;
    if (writer->options->version == 0)
        return written_position(config, writer->options->unsorted, row->index);
    int64_t position = 0;
    for (size_t i = 0; i < row_number; i++)
        if (analysis->rows[i].special < 0)
            position++;
    return position;
}

/* Order of the sampled timeline as written: --unsorted swaps a few
 * neighbours with different times. */
size_t sample_written(const struct writer *writer, const struct allocator_config *config,
                             const struct analysis *analysis, size_t position)
{
    if (!writer->options->unsorted)
        return position;
    size_t first = position & ~(size_t)1;
    if (first + 1 < analysis->sampled_count &&
        analysis->sampled[first].event.time_ps < analysis->sampled[first + 1].event.time_ps &&
        hash_mix(config->seed ^ UINT64_C(0x5a3), first) % 7 == 0)
        return position ^ 1;
    return position;
}

struct memory_stats summary_peak_stats(const struct analysis *analysis)
{
    struct memory_stats stats = event_stats(&analysis->peak);
    stats.peak_bytes_in_use = analysis->peak.stack_bytes + analysis->peak.heap_bytes;
    return stats;
}

/* Summary, rows, specials and (version 1) sampled timeline: fields 2..5. */
void encode_tail(const struct writer *writer, const struct allocator_config *config,
                        const struct analysis *analysis, struct bytes *tail)
{
    uint8_t body[SNAPSHOT_BYTES_MAX], stats_body[64];
    struct memory_stats stats = summary_peak_stats(analysis);
    size_t stats_length = encode_stats(stats_body, &stats);
    uint8_t *p = body;
    p = put_int64(p, 1, analysis->lifetime_peak);
    p = put_message(p, 2, stats_body, stats_length);
    p = put_int64(p, 3, analysis->peak.time_ps);
    p = put_int64(p, 4, analysis->peak.stack_bytes + analysis->peak.heap_bytes + analysis->peak.free_bytes);
    uint8_t *q = bytes_reserve(tail, (size_t)(p - body) + 16);
    tail->size += (size_t)(put_message(q, 2, body, (size_t)(p - body)) - q);

    for (size_t i = 0; i < analysis->row_count; i++) {
        const struct row *row = &analysis->rows[i];
        p = body;
        p = put_int64(p, 1, row_snapshot_index(writer, config, analysis, i));
        p = put_int64(p, 2, row->special);
        p = put_int64(p, 3, row->occurrences);
        q = bytes_reserve(tail, (size_t)(p - body) + 16);
        tail->size += (size_t)(put_message(q, 3, body, (size_t)(p - body)) - q);
    }
    for (int i = 0; i < analysis->special_count; i++) {
        struct event_text text;
        tensor_text(&analysis->specials[i].tensor, &text);
        size_t length = encode_metadata(body, &analysis->specials[i], &text);
        q = bytes_reserve(tail, length + 16);
        tail->size += (size_t)(put_message(q, 4, body, length) - q);
    }
    for (size_t i = 0; i < analysis->sampled_count; i++)
        bytes_put_snapshot(tail, 5, &analysis->sampled[sample_written(writer, config, analysis, i)].event);
}

/* One snapshot of a version 0 timeline; returns the protobuf bytes
 * written (0 for JSON, whose size nobody needs up front). */
uint64_t write_timeline_snapshot(struct writer *writer, const struct event *event, bool first)
{
    if (writer->options->format == FORMAT_JSON) {
        if (!first)
            json_char(&writer->json, ',');
        json_snapshot(&writer->json, event);
        return 0;
    }
    uint8_t *p = (uint8_t *)output_reserve(writer->out, SNAPSHOT_BYTES_MAX + 16);
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    size_t size = (size_t)(put_message(p, 1, body, length) - p);
    writer->out->used += size;
    return size;
}

/* Pass 3 (version 0): the whole timeline, writing the --unsorted pairs
 * swapped; returns the protobuf bytes written. */
uint64_t stream_timeline(struct writer *writer, struct simulator *sim, const struct analysis *analysis)
{
    const struct allocator_config *config = sim->config;
    uint64_t written = 0;
    struct event event, held;
    for (int64_t index = 0; index < analysis->count; index++) {
        simulator_next(sim, &event);
        if (swapped_pair(config, writer->options->unsorted, index)) {
            held = event;
            simulator_next(sim, &event);
            index++;
            written += write_timeline_snapshot(writer, &event, index == 1);
            written += write_timeline_snapshot(writer, &held, false);
            continue;
        }
        written += write_timeline_snapshot(writer, &event, index == 0);
    }
    return written;
}

void write_allocator_pb(struct writer *writer, struct simulator *sim, const struct program *program,
                               const struct analysis *analysis)
{
    const struct allocator_config *config = sim->config;
    struct bytes head = {0}, tail = {0};
    if (writer->options->version == 1) {
        for (size_t i = 0; i < analysis->row_count; i++)
            if (analysis->rows[i].special < 0)
                bytes_put_snapshot(&head, 1, &analysis->rows[i].event);
    }
    encode_tail(writer, config, analysis, &tail);
    uint64_t value_length = (writer->options->version == 0 ? analysis->snapshot_field_bytes : head.size) + tail.size;
    size_t key_length = strlen(config->name);
    uint64_t entry_length = 1 + varint_size(key_length) + key_length + 1 + varint_size(value_length) + value_length;

    uint8_t prefix[64];
    uint8_t *p = put_tag(prefix, 1, WIRE_LENGTH);
    p = put_varint(p, entry_length);
    p = put_string(p, 1, config->name, key_length);
    p = put_tag(p, 2, WIRE_LENGTH);
    p = put_varint(p, value_length);
    output_bytes(writer->out, prefix, (size_t)(p - prefix));
    if (writer->options->version == 0) {
        simulator_start(sim, config, program);
        if (stream_timeline(writer, sim, analysis) != analysis->snapshot_field_bytes)
            fatal("internal error: timeline size changed between passes");
    } else {
        output_bytes(writer->out, head.data, head.size);
    }
    output_bytes(writer->out, tail.data, tail.size);
    free(head.data);
    free(tail.data);
}

void json_summary(struct json *json, const struct analysis *analysis)
{
    json_key(json, KEY_SUMMARY, false);
    json_char(json, '{');
    json_key(json, KEY_LIFETIME, true);
    json_int64(json, analysis->lifetime_peak);
    json_key(json, KEY_PEAK_STATS, false);
    struct memory_stats stats = summary_peak_stats(analysis);
    json_stats(json, &stats);
    json_key(json, KEY_PEAK_TIME, false);
    json_int64(json, analysis->peak.time_ps);
    json_key(json, KEY_CAPACITY, false);
    json_int64(json, analysis->peak.stack_bytes + analysis->peak.heap_bytes + analysis->peak.free_bytes);
    json_char(json, '}');
}

void json_active_and_special(struct writer *writer, const struct allocator_config *config,
                                    const struct analysis *analysis)
{
    struct json *json = &writer->json;
    json_key(json, KEY_ACTIVE, false);
    json_char(json, '[');
    for (size_t i = 0; i < analysis->row_count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_char(json, '{');
        json_key(json, KEY_SNAPSHOT_INDEX, true);
        json_int64(json, row_snapshot_index(writer, config, analysis, i));
        json_key(json, KEY_SPECIAL_INDEX, false);
        json_int64(json, analysis->rows[i].special);
        json_key(json, KEY_OCCURRENCES, false);
        json_int64(json, analysis->rows[i].occurrences);
        json_char(json, '}');
    }
    json_char(json, ']');
    json_key(json, KEY_SPECIAL, false);
    json_char(json, '[');
    for (int i = 0; i < analysis->special_count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_metadata(json, &analysis->specials[i]);
    }
    json_char(json, ']');
}

void write_allocator_json(struct writer *writer, struct simulator *sim, const struct program *program,
                                 const struct analysis *analysis, bool first)
{
    const struct allocator_config *config = sim->config;
    struct json *json = &writer->json;
    if (!first)
        json_char(json, ',');
    json_string(json, config->name, strlen(config->name));
    json_char(json, ':');
    json_char(json, '{');
    json_key(json, KEY_SNAPSHOTS, true);
    json_char(json, '[');
    if (writer->options->version == 0) {
        simulator_start(sim, config, program);
        stream_timeline(writer, sim, analysis);
    } else {
        bool any = false;
        for (size_t i = 0; i < analysis->row_count; i++) {
            if (analysis->rows[i].special >= 0)
                continue;
            if (any)
                json_char(json, ',');
            json_snapshot(json, &analysis->rows[i].event);
            any = true;
        }
    }
    json_char(json, ']');

    json_summary(json, analysis);
    json_active_and_special(writer, config, analysis);
    if (writer->options->version == 1) {
        json_key(json, KEY_SAMPLED, false);
        json_char(json, '[');
        for (size_t i = 0; i < analysis->sampled_count; i++) {
            if (i > 0)
                json_char(json, ',');
            json_snapshot(json, &analysis->sampled[sample_written(writer, config, analysis, i)].event);
        }
        json_char(json, ']');
    }
    json_char(json, '}');
}
/* ---- the profile-level fields after the map ---- */

/* Modules cover whole steps when there are no more modules than steps,
 * else equal slices of the traced time. */
void hlo_module_make(const struct options *options, const struct step_times *times, int64_t index,
                            struct hlo_module *module)
{
    int64_t steps = 0;
    for (int64_t step = 1; step <= times->steps; step++)
        if (times->first_ps[step] >= 0)
            steps = step;
    int64_t count = options->hlo_modules;
    uint64_t fingerprint = hash_mix(options->seed, UINT64_C(0x41c0));
    snprintf(module->name, sizeof module->name, "jit_train_step(%" PRIu64 ")", fingerprint);
    module->id = index;
    if (steps >= count) {
        int64_t first = 1 + index * steps / count, last = (index + 1) * steps / count;
        module->start_ps = times->first_ps[first] - 5000000;
        module->end_ps = times->last_ps[last] + 5000000;
        return;
    }
    int64_t begin = steps > 0 ? times->first_ps[1] : times->begin_ps;
    double span = (double)(times->end_ps - begin) / (double)count;
    int64_t from = begin + (int64_t)(span * (double)index);
    int64_t to = begin + (int64_t)(span * (double)(index + 1));
    module->start_ps = from + (to - from) / 50;
    module->end_ps = to - (to - from) / 50;
}

int string_compare(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void write_hlo_module_pb(struct writer *writer, const struct hlo_module *module)
{
    uint8_t body[160], field[176];
    uint8_t *p = put_string(body, 1, module->name, strlen(module->name));
    p = put_int64(p, 2, module->start_ps);
    p = put_int64(p, 3, module->end_ps);
    p = put_int64(p, 4, module->id);
    p = put_string(p, 5, "GPU:0", 5);
    uint8_t *end = put_message(field, 6, body, (size_t)(p - body));
    output_bytes(writer->out, field, (size_t)(end - field));
}

void write_hlo_module_json(struct writer *writer, const struct hlo_module *module, bool first)
{
    struct json *json = &writer->json;
    if (!first)
        json_char(json, ',');
    json_char(json, '{');
    json_key(json, KEY_NAME, true);
    json_string(json, module->name, strlen(module->name));
    json_key(json, KEY_START, false);
    json_int64(json, module->start_ps);
    json_key(json, KEY_END, false);
    json_int64(json, module->end_ps);
    json_key(json, KEY_ID, false);
    json_int64(json, module->id);
    json_key(json, KEY_PLANE, false);
    json_string(json, "GPU:0", 5);
    json_char(json, '}');
}

/* num_hosts, memory_ids (sorted, as XProf lists them) and version. */
void write_profile_header_fields(struct writer *writer, const char *const *ids, int count)
{
    const struct options *options = writer->options;
    struct json *json = &writer->json;
    if (options->format == FORMAT_PB) {
        uint8_t field[64];
        output_bytes(writer->out, field, (size_t)(put_int64(field, 2, 1) - field));
        for (int i = 0; i < count; i++)
            output_bytes(writer->out, field, (size_t)(put_string(field, 3, ids[i], strlen(ids[i])) - field));
        output_bytes(writer->out, field, (size_t)(put_int64(field, 5, options->version) - field));
        return;
    }
    json_key(json, KEY_NUM_HOSTS, false);
    json_int32(json, 1);
    json_key(json, KEY_MEMORY_IDS, false);
    json_char(json, '[');
    for (int i = 0; i < count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_string(json, ids[i], strlen(ids[i]));
    }
    json_char(json, ']');
    if (options->version != 0) { /* version 0 producers had no such field */
        json_key(json, KEY_VERSION, false);
        json_int32(json, options->version);
    }
}

void write_profile_fields(struct writer *writer, const struct allocator_config *configs,
                                 const struct step_times *times)
{
    const struct options *options = writer->options;
    const char *ids[MAX_ALLOCATORS];
    for (int i = 0; i < options->allocators; i++)
        ids[i] = configs[i].name;
    qsort(ids, (size_t)options->allocators, sizeof ids[0], string_compare);
    write_profile_header_fields(writer, ids, options->allocators);
    bool json = options->format == FORMAT_JSON;
    bool json_modules = json && (options->version != 0 || options->hlo_modules > 0);
    if (json_modules) {
        json_key(&writer->json, KEY_HLO_MODULES, false);
        json_char(&writer->json, '[');
    }
    for (int64_t i = 0; i < options->hlo_modules; i++) {
        struct hlo_module module;
        hlo_module_make(options, times, i, &module);
        if (json)
            write_hlo_module_json(writer, &module, i == 0);
        else
            write_hlo_module_pb(writer, &module);
    }
    if (json_modules)
        json_char(&writer->json, ']');
    if (json)
        json_char(&writer->json, '}');
}
