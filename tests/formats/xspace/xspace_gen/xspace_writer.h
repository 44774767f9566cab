/* xspace_writer: planes, lines, events and metadata maps of an XSpace,
 * serialised the way the C++ profiler writes them (tests/generate_xspace).
 *
 * Owns the wire layout of xspace.md section 2: fields in number order
 * (XSpace: planes, then hostnames; XPlane: id, name, lines, event-metadata
 * map, stat-metadata map, plane stats; XLine: id, name, timestamp_ns,
 * events, display_name; XEvent: metadata_id, offset_ps, duration_ps, stats,
 * num_occurrences), proto3 zero omission, map entries {key, value} in a
 * scrambled "hash" order, and the metadata interning (name -> map key).
 *
 * A line's events are either encoded at once into the line's buffer (the
 * host plane, whose events the simulation produces step by step) or made
 * by a generator callback that runs twice, once to count the bytes and
 * once to write them (device planes: gigabytes never held in memory).
 *
 * What an event means is the callers' business (the styles); what XProf
 * makes of it is the oracle's, which watches through `struct
 * xspace_observer`. Nothing here decodes. */
#ifndef XSPACE_GEN_XSPACE_WRITER_H
#define XSPACE_GEN_XSPACE_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/formats/xspace/xspace_gen/wire.h"

/* The value field of an XStat: the numbers are the field numbers. */
enum stat_kind {
    STAT_DOUBLE = 2,
    STAT_UINT64 = 3,
    STAT_INT64 = 4,
    STAT_STR = 5,
    STAT_BYTES = 6,
    STAT_REF = 7,
};

/* One XStat. `bits`: the int64/uint64 value, a double's bits, a string
 * id (str and bytes) or, for a ref, the stat-metadata key it points at. */
struct stat_item {
    uint64_t key;
    uint64_t bits;
    uint8_t kind;
};

struct xevent {
    uint64_t metadata_key;
    int64_t offset_ps;
    int64_t duration_ps;
    int64_t num_occurrences; /* written instead of offset_ps when set */
    bool use_num_occurrences;
};

struct metadata_entry {
    uint64_t key;   /* the map key: what XProf looks up */
    uint64_t id;    /* the inner id as written (0: left out) */
    uint32_t name;  /* string id */
    bool has_name;  /* false: no name field at all */
    bool has_display_name;
    uint32_t first_stat; /* event metadata stats, in plane->metadata_stats */
    uint32_t stat_count;
};

struct metadata_table {
    struct metadata_entry *entries;
    uint32_t count, capacity;
    uint64_t next_key;
    uint32_t *index;     /* name string id -> first entry of that name, + 1 */
    uint32_t *key_index; /* map key -> entry, + 1 */
    uint32_t index_size;
};

struct plane;
struct line;
struct sink;

/* Writes the events of line `index` of `plane` to `sink` (field 4 of the
 * line each). Runs twice per write; must do the same both times. */
typedef void line_generator(void *context, struct plane *plane, uint32_t index,
                            struct sink *sink);

struct line {
    int64_t id;
    uint32_t name;
    int64_t timestamp_ns;
    bool display_name; /* write display_name (= name) after the events */
    struct bytes events;
    uint64_t event_count;
    line_generator *generate; /* NULL: the events are in `events` */
    void *generate_context;
};

struct plane {
    int64_t id;
    uint32_t name;
    struct metadata_table event_metadata;
    struct metadata_table stat_metadata;
    struct line *lines;
    uint32_t line_count, line_capacity;
    struct stat_item *stats; /* plane stats */
    uint32_t stat_count, stat_capacity;
    struct stat_item *metadata_stats; /* stats of event metadata entries */
    uint32_t metadata_stat_count, metadata_stat_capacity;
    uint64_t salt;          /* scrambles the map order */
    bool odd_inner_ids;     /* some map entries' inner id differs from the key */
    uint64_t missing_keys;  /* keys handed out by plane_missing_key */
    uint32_t index_in_file; /* set when written */
};

struct xspace_observer {
    void *context;
    /* Every event encoded for real (not while counting). */
    void (*event)(void *context, const struct plane *plane, uint32_t line_index,
                  const struct xevent *event, const struct stat_item *stats, uint32_t stat_count);
    /* After the plane's bytes are in the file, in file order. */
    void (*plane_written)(void *context, const struct plane *plane);
};

struct xspace_writer {
    struct sink sink;
    const struct xspace_observer *observer;
    uint32_t planes_written;
};

/* A new plane. Metadata keys count from `first_key` (1, or near 2^40 for
 * --big-ids) in each of the two maps. */
struct plane *plane_new(const char *name, uint64_t first_key, uint64_t salt);
struct plane *plane_new_named(uint32_t name, uint64_t first_key, uint64_t salt);
void plane_free(struct plane *plane);

/* The event-metadata key of `name` (string id), added on first use. */
uint64_t plane_event_key(struct plane *plane, uint32_t name);
/* A second entry with the same name under a new key. */
uint64_t plane_event_key_duplicate(struct plane *plane, uint32_t name);
/* The stat-metadata key of `name`: stat keys and ref targets alike. */
uint64_t plane_stat_key(struct plane *plane, uint32_t name);
uint64_t plane_stat_key_duplicate(struct plane *plane, uint32_t name);
/* A stat-metadata entry with no name field at all, under `key`. */
void plane_stat_key_nameless(struct plane *plane, uint64_t key);
/* An entry under `key` as a file has it (for --replay); a key seen
 * before takes the new name. */
void plane_set_metadata(struct plane *plane, bool event_map, uint64_t key, bool has_name,
                        uint32_t name);
/* A key in neither map (a metadata id the file does not define). */
uint64_t plane_missing_key(struct plane *plane);
struct metadata_entry *plane_event_entry(struct plane *plane, uint64_t key);
/* The name of `key` in the event or stat map as XProf sees it: the entry
 * under that map key; `found` false when there is none or it has no name. */
uint32_t metadata_name(const struct metadata_table *table, uint64_t key, bool *found);

/* Adds a line; returns its index. `generate` NULL: events come from
 * line_add_event. */
uint32_t plane_add_line(struct plane *plane, int64_t id, uint32_t name, int64_t timestamp_ns,
                        bool display_name, line_generator *generate, void *context);
void plane_add_stat(struct plane *plane, struct stat_item stat);
/* Adds a stat to event metadata entry `key` (the /host:metadata plane). */
void plane_add_metadata_stat(struct plane *plane, uint64_t key, struct stat_item stat);

/* Encodes one event into line `index`'s buffer and tells the observer. */
void line_add_event(struct xspace_writer *writer, struct plane *plane, uint32_t index,
                    const struct xevent *event, const struct stat_item *stats,
                    uint32_t stat_count);
/* Encodes one event into `sink` (for line generators); tells the observer
 * when the sink is not a counting one. */
void sink_event(struct xspace_writer *writer, struct sink *sink, struct plane *plane,
                uint32_t index, const struct xevent *event, const struct stat_item *stats,
                uint32_t stat_count);

/* Stat constructors. */
struct stat_item stat_int64(uint64_t key, int64_t value);
struct stat_item stat_uint64(uint64_t key, uint64_t value);
struct stat_item stat_double(uint64_t key, double value);
struct stat_item stat_str(uint64_t key, uint32_t string);
struct stat_item stat_bytes(uint64_t key, uint32_t string);
struct stat_item stat_ref(uint64_t key, uint64_t target_key);
double stat_double_value(const struct stat_item *stat);

void xspace_writer_open(struct xspace_writer *writer, FILE *file,
                        const struct xspace_observer *observer);
/* Writes what is still staged (before the FILE is flushed or closed). */
void xspace_writer_close(struct xspace_writer *writer);
/* Writes the plane as XSpace field 1 (the order of calls is file order). */
void xspace_write_plane(struct xspace_writer *writer, struct plane *plane);
/* Writes the hostnames (field 4, after every plane). */
void xspace_write_hostname(struct xspace_writer *writer, uint32_t hostname);

#endif
