/* xspace_writer: see xspace_writer.h. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/xspace_writer.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/splitmix64.h"

/* Far above any key a plane hands out, below 2^53 so ids stay exact in
 * tools that read them as doubles. */
#define MISSING_KEY_BASE (UINT64_C(1) << 50)

static uint64_t mix64(uint64_t value)
{
    return splitmix64_mix(value);
}

/* ---- metadata tables ----
 * Two open-addressing indexes: name -> first entry of that name (the one
 * plane_*_key returns; duplicates are asked for explicitly), and key ->
 * entry (for the oracle's lookups, as XProf looks names up by map key). */

static void table_init(struct metadata_table *table, uint64_t first_key)
{
    *table = (struct metadata_table){.next_key = first_key};
}

static void table_free(struct metadata_table *table)
{
    free(table->entries);
    free(table->index);
    free(table->key_index);
    *table = (struct metadata_table){0};
}

static void index_insert(uint32_t *index, uint32_t size, uint64_t hash, uint32_t entry)
{
    uint32_t mask = size - 1;
    uint32_t slot = (uint32_t)hash & mask;
    while (index[slot] != 0)
        slot = (slot + 1) & mask;
    index[slot] = entry + 1;
}

/* The first entry named `name`, or NULL. */
static struct metadata_entry *table_find(const struct metadata_table *table, uint32_t name)
{
    if (table->index_size == 0)
        return NULL;
    uint32_t mask = table->index_size - 1;
    uint32_t slot = (uint32_t)mix64(name) & mask;
    while (table->index[slot] != 0) {
        struct metadata_entry *entry = &table->entries[table->index[slot] - 1];
        if (entry->name == name)
            return entry;
        slot = (slot + 1) & mask;
    }
    return NULL;
}

static struct metadata_entry *table_entry(const struct metadata_table *table, uint64_t key)
{
    if (table->index_size == 0)
        return NULL;
    uint32_t mask = table->index_size - 1;
    uint32_t slot = (uint32_t)mix64(key ^ UINT64_C(0x6b)) & mask;
    while (table->key_index[slot] != 0) {
        struct metadata_entry *entry = &table->entries[table->key_index[slot] - 1];
        if (entry->key == key)
            return entry;
        slot = (slot + 1) & mask;
    }
    return NULL;
}

static void table_reindex(struct metadata_table *table, uint32_t size)
{
    free(table->index);
    free(table->key_index);
    table->index = xcalloc(size, sizeof *table->index);
    table->key_index = xcalloc(size, sizeof *table->key_index);
    table->index_size = size;
    for (uint32_t i = 0; i < table->count; i++) {
        const struct metadata_entry *entry = &table->entries[i];
        /* In entry order, so the first of each name is the one indexed. */
        if (entry->has_name && table_find(table, entry->name) == NULL)
            index_insert(table->index, size, mix64(entry->name), i);
        index_insert(table->key_index, size, mix64(entry->key ^ UINT64_C(0x6b)), i);
    }
}

static struct metadata_entry *table_append(struct metadata_table *table, uint64_t key,
                                           bool has_name, uint32_t name)
{
    if (table_entry(table, key) != NULL)
        fatal("a metadata key was used twice");
    if (table->count == table->capacity) {
        table->capacity = table->capacity ? table->capacity * 2 : 64;
        table->entries = xrealloc(table->entries, table->capacity, sizeof *table->entries);
    }
    uint32_t index = table->count++;
    struct metadata_entry *entry = &table->entries[index];
    *entry = (struct metadata_entry){.key = key, .id = key, .name = name, .has_name = has_name};
    if ((uint64_t)table->count * 2 > table->index_size) {
        table_reindex(table, table->index_size ? table->index_size * 2 : 64);
    } else {
        if (has_name && table_find(table, name) == NULL)
            index_insert(table->index, table->index_size, mix64(name), index);
        index_insert(table->key_index, table->index_size, mix64(key ^ UINT64_C(0x6b)), index);
    }
    return entry;
}

static uint64_t table_add_named(struct metadata_table *table, uint32_t name)
{
    uint64_t key = table->next_key++;
    table_append(table, key, true, name);
    return key;
}

static uint64_t table_key(struct metadata_table *table, uint32_t name)
{
    struct metadata_entry *entry = table_find(table, name);
    return entry != NULL ? entry->key : table_add_named(table, name);
}

uint32_t metadata_name(const struct metadata_table *table, uint64_t key, bool *found)
{
    const struct metadata_entry *entry = table_entry(table, key);
    *found = entry != NULL && entry->has_name;
    return *found ? entry->name : 0;
}

/* ---- planes and lines ---- */

struct plane *plane_new_named(uint32_t name, uint64_t first_key, uint64_t salt)
{
    struct plane *plane = xcalloc(1, sizeof *plane);
    plane->name = name;
    plane->salt = salt;
    table_init(&plane->event_metadata, first_key);
    table_init(&plane->stat_metadata, first_key);
    return plane;
}

struct plane *plane_new(const char *name, uint64_t first_key, uint64_t salt)
{
    return plane_new_named(string_c(name), first_key, salt);
}

void plane_free(struct plane *plane)
{
    if (plane == NULL)
        return;
    for (uint32_t i = 0; i < plane->line_count; i++)
        bytes_free(&plane->lines[i].events);
    free(plane->lines);
    free(plane->stats);
    free(plane->metadata_stats);
    table_free(&plane->event_metadata);
    table_free(&plane->stat_metadata);
    free(plane);
}

uint64_t plane_event_key(struct plane *plane, uint32_t name)
{
    return table_key(&plane->event_metadata, name);
}

uint64_t plane_event_key_duplicate(struct plane *plane, uint32_t name)
{
    plane_event_key(plane, name);
    return table_add_named(&plane->event_metadata, name);
}

uint64_t plane_stat_key(struct plane *plane, uint32_t name)
{
    return table_key(&plane->stat_metadata, name);
}

uint64_t plane_stat_key_duplicate(struct plane *plane, uint32_t name)
{
    plane_stat_key(plane, name);
    return table_add_named(&plane->stat_metadata, name);
}

void plane_stat_key_nameless(struct plane *plane, uint64_t key)
{
    table_append(&plane->stat_metadata, key, false, 0);
}

void plane_set_metadata(struct plane *plane, bool event_map, uint64_t key, bool has_name,
                        uint32_t name)
{
    struct metadata_table *table = event_map ? &plane->event_metadata : &plane->stat_metadata;
    struct metadata_entry *entry = table_entry(table, key);
    if (entry == NULL) {
        table_append(table, key, has_name, name);
        return;
    }
    /* A key written twice: the last entry wins, as protobuf parses maps. */
    entry->has_name = has_name;
    entry->name = name;
    table_reindex(table, table->index_size);
}

uint64_t plane_missing_key(struct plane *plane)
{
    return MISSING_KEY_BASE + plane->missing_keys++;
}

struct metadata_entry *plane_event_entry(struct plane *plane, uint64_t key)
{
    return table_entry(&plane->event_metadata, key);
}

uint32_t plane_add_line(struct plane *plane, int64_t id, uint32_t name, int64_t timestamp_ns,
                        bool display_name, line_generator *generate, void *context)
{
    if (plane->line_count == plane->line_capacity) {
        plane->line_capacity = plane->line_capacity ? plane->line_capacity * 2 : 8;
        plane->lines = xrealloc(plane->lines, plane->line_capacity, sizeof *plane->lines);
    }
    plane->lines[plane->line_count] = (struct line){
        .id = id,
        .name = name,
        .timestamp_ns = timestamp_ns,
        .display_name = display_name,
        .generate = generate,
        .generate_context = context,
    };
    return plane->line_count++;
}

static void stats_append(struct stat_item **stats, uint32_t *count, uint32_t *capacity,
                         struct stat_item stat)
{
    if (*count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 16;
        *stats = xrealloc(*stats, *capacity, sizeof **stats);
    }
    (*stats)[(*count)++] = stat;
}

void plane_add_stat(struct plane *plane, struct stat_item stat)
{
    stats_append(&plane->stats, &plane->stat_count, &plane->stat_capacity, stat);
}

void plane_add_metadata_stat(struct plane *plane, uint64_t key, struct stat_item stat)
{
    struct metadata_entry *entry = plane_event_entry(plane, key);
    if (entry == NULL)
        fatal("plane_add_metadata_stat: no such event metadata");
    /* An entry's stats are contiguous: add them all before the next entry's. */
    if (entry->stat_count == 0)
        entry->first_stat = plane->metadata_stat_count;
    else if (entry->first_stat + entry->stat_count != plane->metadata_stat_count)
        fatal("plane_add_metadata_stat: stats of one entry must be added together");
    stats_append(&plane->metadata_stats, &plane->metadata_stat_count,
                 &plane->metadata_stat_capacity, stat);
    entry->stat_count++;
}

/* ---- stats ---- */

struct stat_item stat_int64(uint64_t key, int64_t value)
{
    return (struct stat_item){key, (uint64_t)value, STAT_INT64};
}

struct stat_item stat_uint64(uint64_t key, uint64_t value)
{
    return (struct stat_item){key, value, STAT_UINT64};
}

struct stat_item stat_double(uint64_t key, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return (struct stat_item){key, bits, STAT_DOUBLE};
}

struct stat_item stat_str(uint64_t key, uint32_t string)
{
    return (struct stat_item){key, string, STAT_STR};
}

struct stat_item stat_bytes(uint64_t key, uint32_t string)
{
    return (struct stat_item){key, string, STAT_BYTES};
}

struct stat_item stat_ref(uint64_t key, uint64_t target_key)
{
    return (struct stat_item){key, target_key, STAT_REF};
}

double stat_double_value(const struct stat_item *stat)
{
    double value;
    memcpy(&value, &stat->bits, sizeof value);
    return value;
}

/* ---- encoding ---- */

static uint64_t stat_size(const struct stat_item *stat)
{
    uint64_t size = stat->key != 0 ? 1 + varint_size(stat->key) : 0;
    switch (stat->kind) {
    case STAT_DOUBLE:
        return size + 1 + 8;
    case STAT_UINT64:
    case STAT_INT64:
    case STAT_REF:
        return size + 1 + varint_size(stat->bits);
    default:
        return size + length_field_size(stat->kind, string_text((uint32_t)stat->bits).size);
    }
}

static void sink_stat(struct sink *sink, uint32_t field, const struct stat_item *stat)
{
    sink_length_prefix(sink, field, stat_size(stat));
    if (stat->key != 0)
        sink_varint_field(sink, 1, stat->key);
    switch (stat->kind) {
    case STAT_DOUBLE:
        sink_fixed64_field(sink, STAT_DOUBLE, stat->bits);
        break;
    case STAT_UINT64:
    case STAT_INT64:
    case STAT_REF:
        sink_varint_field(sink, stat->kind, stat->bits);
        break;
    default: {
        struct text text = string_text((uint32_t)stat->bits);
        sink_bytes_field(sink, stat->kind, text.data, text.size);
        break;
    }
    }
}

static uint64_t stats_size(uint32_t field, const struct stat_item *stats, uint32_t count)
{
    uint64_t size = 0;
    for (uint32_t i = 0; i < count; i++)
        size += length_field_size(field, stat_size(&stats[i]));
    return size;
}

static uint64_t event_size(const struct xevent *event, const struct stat_item *stats,
                           uint32_t stat_count)
{
    uint64_t size = 0;
    if (event->metadata_key != 0)
        size += 1 + varint_size(event->metadata_key);
    if (!event->use_num_occurrences)
        size += 1 + varint_size((uint64_t)event->offset_ps);
    if (event->duration_ps != 0)
        size += 1 + varint_size((uint64_t)event->duration_ps);
    size += stats_size(4, stats, stat_count);
    if (event->use_num_occurrences)
        size += 1 + varint_size((uint64_t)event->num_occurrences);
    return size;
}

static void encode_event(struct sink *sink, const struct xevent *event,
                         const struct stat_item *stats, uint32_t stat_count)
{
    sink_length_prefix(sink, 4, event_size(event, stats, stat_count));
    if (event->metadata_key != 0)
        sink_varint_field(sink, 1, event->metadata_key);
    /* proto3 writes a set oneof member even when it is 0. */
    if (!event->use_num_occurrences)
        sink_varint_field(sink, 2, (uint64_t)event->offset_ps);
    if (event->duration_ps != 0)
        sink_varint_field(sink, 3, (uint64_t)event->duration_ps);
    for (uint32_t i = 0; i < stat_count; i++)
        sink_stat(sink, 4, &stats[i]);
    if (event->use_num_occurrences)
        sink_varint_field(sink, 5, (uint64_t)event->num_occurrences);
}

void sink_event(struct xspace_writer *writer, struct sink *sink, struct plane *plane,
                uint32_t index, const struct xevent *event, const struct stat_item *stats,
                uint32_t stat_count)
{
    encode_event(sink, event, stats, stat_count);
    bool counting = sink->buffer == NULL && sink->file == NULL;
    if (!counting && writer->observer != NULL && writer->observer->event != NULL)
        writer->observer->event(writer->observer->context, plane, index, event, stats,
                                stat_count);
}

void line_add_event(struct xspace_writer *writer, struct plane *plane, uint32_t index,
                    const struct xevent *event, const struct stat_item *stats,
                    uint32_t stat_count)
{
    struct line *line = &plane->lines[index];
    struct sink sink = {.buffer = &line->events};
    sink_event(writer, &sink, plane, index, event, stats, stat_count);
    line->event_count++;
}

/* ---- maps: entries in a scrambled order, as a hash map iterates ---- */

struct ordered_entry {
    uint64_t hash;
    const struct metadata_entry *entry;
};

static int ordered_entry_compare(const void *a, const void *b)
{
    const struct ordered_entry *left = a, *right = b;
    if (left->hash != right->hash)
        return left->hash < right->hash ? -1 : 1;
    return (left->entry->key > right->entry->key) - (left->entry->key < right->entry->key);
}

/* The inner id written for an entry: the key, except for some entries of
 * an --odd plane (another number, or none at all). */
static uint64_t written_inner_id(const struct plane *plane, const struct metadata_entry *entry)
{
    if (!plane->odd_inner_ids)
        return entry->id;
    uint64_t hash = mix64(entry->key ^ plane->salt ^ UINT64_C(0x1d));
    if (hash % 6 == 0)
        return 0;
    if (hash % 6 == 3)
        return entry->id + 1000003;
    return entry->id;
}

static void encode_metadata_value(struct bytes *out, const struct plane *plane,
                                  const struct metadata_entry *entry, bool event_map)
{
    struct sink sink = {.buffer = out};
    uint64_t id = written_inner_id(plane, entry);
    if (id != 0)
        sink_varint_field(&sink, 1, id);
    struct text name = string_text(entry->name);
    if (entry->has_name && name.size != 0)
        sink_bytes_field(&sink, 2, name.data, name.size);
    if (event_map && entry->has_display_name && name.size != 0)
        sink_bytes_field(&sink, 4, name.data, name.size);
    for (uint32_t i = 0; event_map && i < entry->stat_count; i++)
        sink_stat(&sink, 5, &plane->metadata_stats[entry->first_stat + i]);
}

static void encode_map(struct bytes *out, const struct plane *plane,
                       const struct metadata_table *table, uint32_t field, bool event_map)
{
    struct ordered_entry *order = xcalloc(table->count, sizeof *order);
    for (uint32_t i = 0; i < table->count; i++)
        order[i] = (struct ordered_entry){mix64(table->entries[i].key ^ plane->salt),
                                          &table->entries[i]};
    if (table->count > 1)
        qsort(order, table->count, sizeof *order, ordered_entry_compare);
    struct bytes value = {0};
    struct sink sink = {.buffer = out};
    for (uint32_t i = 0; i < table->count; i++) {
        value.size = 0;
        encode_metadata_value(&value, plane, order[i].entry, event_map);
        uint64_t entry_size = 1 + varint_size(order[i].entry->key) +
                              length_field_size(2, value.size);
        sink_length_prefix(&sink, field, entry_size);
        sink_varint_field(&sink, 1, order[i].entry->key);
        sink_bytes_field(&sink, 2, value.data, value.size);
    }
    bytes_free(&value);
    free(order);
}

/* ---- writing a plane ---- */

static uint64_t line_header_size(const struct line *line)
{
    uint64_t size = 0;
    if (line->id != 0)
        size += 1 + varint_size((uint64_t)line->id);
    size_t name_size = string_text(line->name).size;
    if (name_size != 0)
        size += length_field_size(2, name_size);
    if (line->timestamp_ns != 0)
        size += 1 + varint_size((uint64_t)line->timestamp_ns);
    return size;
}

static uint64_t line_trailer_size(const struct line *line)
{
    size_t name_size = string_text(line->name).size;
    return line->display_name && name_size != 0 ? length_field_size(11, name_size) : 0;
}

static void write_line_events(struct plane *plane, uint32_t index, struct sink *sink)
{
    struct line *line = &plane->lines[index];
    if (line->generate != NULL)
        line->generate(line->generate_context, plane, index, sink);
    else
        sink_put(sink, line->events.data, line->events.size);
}

void xspace_writer_open(struct xspace_writer *writer, FILE *file,
                        const struct xspace_observer *observer)
{
    *writer = (struct xspace_writer){.observer = observer};
    if (file != NULL)
        writer->sink = sink_open_file(file);
}

void xspace_writer_close(struct xspace_writer *writer)
{
    sink_close(&writer->sink);
}

void xspace_write_plane(struct xspace_writer *writer, struct plane *plane)
{
    /* Measure: generated lines run once into a counting sink, which also
     * fills the metadata maps with every name they use. */
    uint64_t *events_size = xcalloc(plane->line_count, sizeof *events_size);
    uint64_t payload = 0;
    if (plane->id != 0)
        payload += 1 + varint_size((uint64_t)plane->id);
    struct text name = string_text(plane->name);
    if (name.size != 0)
        payload += length_field_size(2, name.size);
    for (uint32_t i = 0; i < plane->line_count; i++) {
        struct sink counter = {0};
        write_line_events(plane, i, &counter);
        events_size[i] = counter.count;
        payload += length_field_size(3, line_header_size(&plane->lines[i]) + events_size[i] +
                                            line_trailer_size(&plane->lines[i]));
    }
    struct bytes maps = {0};
    encode_map(&maps, plane, &plane->event_metadata, 4, true);
    encode_map(&maps, plane, &plane->stat_metadata, 5, false);
    payload += maps.size + stats_size(6, plane->stats, plane->stat_count);

    struct sink *sink = &writer->sink;
    if (sink->file == NULL && sink->buffer == NULL) {
        /* Only counting: the sizes are known, no second pass needed. */
        sink->count += length_field_size(1, payload);
        bytes_free(&maps);
        free(events_size);
        plane->index_in_file = writer->planes_written++;
        return;
    }
    sink_length_prefix(sink, 1, payload);
    uint64_t start = sink->count;
    if (plane->id != 0)
        sink_varint_field(sink, 1, (uint64_t)plane->id);
    name = string_text(plane->name);
    if (name.size != 0)
        sink_bytes_field(sink, 2, name.data, name.size);
    for (uint32_t i = 0; i < plane->line_count; i++) {
        struct line *line = &plane->lines[i];
        sink_length_prefix(sink, 3, line_header_size(line) + events_size[i] +
                                        line_trailer_size(line));
        if (line->id != 0)
            sink_varint_field(sink, 1, (uint64_t)line->id);
        struct text line_name = string_text(line->name);
        if (line_name.size != 0)
            sink_bytes_field(sink, 2, line_name.data, line_name.size);
        if (line->timestamp_ns != 0)
            sink_varint_field(sink, 3, (uint64_t)line->timestamp_ns);
        uint64_t before = sink->count;
        write_line_events(plane, i, sink);
        if (sink->count - before != events_size[i])
            fatal("a line generator wrote different bytes the second time");
        line_name = string_text(line->name);
        if (line->display_name && line_name.size != 0)
            sink_bytes_field(sink, 11, line_name.data, line_name.size);
    }
    sink_put(sink, maps.data, maps.size);
    for (uint32_t i = 0; i < plane->stat_count; i++)
        sink_stat(sink, 6, &plane->stats[i]);
    if (sink->count - start != payload)
        fatal("plane size mismatch");
    bytes_free(&maps);
    free(events_size);
    plane->index_in_file = writer->planes_written++;
    if (writer->observer != NULL && writer->observer->plane_written != NULL)
        writer->observer->plane_written(writer->observer->context, plane);
}

void xspace_write_hostname(struct xspace_writer *writer, uint32_t hostname)
{
    struct text text = string_text(hostname);
    sink_bytes_field(&writer->sink, 4, text.data, text.size);
}
