/* xspace_builder: small XSpace files written by hand, for the loader's
 * unit tests (tests/test_xspace_*.c).
 *
 * Owns: planes, lines and events in the order the profilers write them
 * (xspace.md section 2: a plane's lines, then its event-metadata map, then
 * its stat-metadata map), metadata keys given out per plane from a base
 * (1 unless a test asks for ids near 2^48), stats of every value kind,
 * and ref values naming stat metadata by their name. Map entries can be
 * repeated or given inner ids unlike their keys.
 * Called by: the XSpace tests. Must not: know what XProf makes of it. */
#ifndef MEMTOP_XSPACE_BUILDER_H
#define MEMTOP_XSPACE_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "tests/wire_builder.h"

struct xsb_stat {
    const char *name;
    char kind; /* 'i' int64, 'u' uint64, 'd' double, 's' str, 'r' ref */
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
};

#define XSB_INT(name, value) {name, 'i', (int64_t)(value), 0, 0.0, NULL}
#define XSB_UINT(name, value) {name, 'u', 0, (uint64_t)(value), 0.0, NULL}
#define XSB_DOUBLE(name, value) {name, 'd', 0, 0, (value), NULL}
#define XSB_STR(name, value) {name, 's', 0, 0, 0.0, (value)}
#define XSB_REF(name, value) {name, 'r', 0, 0, 0.0, (value)}

#define XSB_NAMES 256

struct xspace_builder {
    struct wire_bytes space;
    struct wire_bytes plane; /* the plane being written: id, name, lines */
    struct wire_bytes line;  /* the line being written: its events */
    const char *line_name;
    int64_t line_timestamp_ns;
    int64_t line_id;
    int late_timestamp; /* write the line's timestamp_ns after its events */
    const char *event_names[XSB_NAMES];
    size_t event_count;
    const char *stat_names[XSB_NAMES];
    size_t stat_count;
    uint64_t key_base; /* keys are key_base + index (default 1) */
};

void xsb_init(struct xspace_builder *builder);
void xsb_free(struct xspace_builder *builder);

/* Starts a plane (ending the one before). */
void xsb_plane(struct xspace_builder *builder, const char *name);
/* Starts a line of the plane (ending the one before). */
void xsb_line(struct xspace_builder *builder, const char *name, int64_t timestamp_ns);
/* One event: its metadata by name (NULL: a key with no map entry). */
void xsb_event(struct xspace_builder *builder, const char *name, int64_t offset_ps,
               int64_t duration_ps, const struct xsb_stat *stats, size_t count);
#define XSB_EVENT(builder, name, offset, duration, ...)                                         \
    xsb_event(builder, name, offset, duration, (const struct xsb_stat[]){__VA_ARGS__},         \
              sizeof((const struct xsb_stat[]){__VA_ARGS__}) / sizeof(struct xsb_stat))
/* An event without stats. */
void xsb_span(struct xspace_builder *builder, const char *name, int64_t offset_ps,
              int64_t duration_ps);
/* A BFC-like memory event of `allocator` (by ref). */
void xsb_memory(struct xspace_builder *builder, int allocation, const char *allocator,
                int64_t offset_ps, int64_t heap_bytes, int64_t bytes, uint64_t address);

/* The key a name has (or gets) in the plane being written. */
uint64_t xsb_stat_key(struct xspace_builder *builder, const char *name);
uint64_t xsb_event_key(struct xspace_builder *builder, const char *name);

/* Ends the plane being written; the XSpace is builder->space. */
void xsb_end_plane(struct xspace_builder *builder);

#endif
