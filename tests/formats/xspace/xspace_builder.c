#include "config.h"

#include "tests/formats/xspace/xspace_builder.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

void xsb_init(struct xspace_builder *builder)
{
    memset(builder, 0, sizeof *builder);
    builder->key_base = 1;
}

void xsb_free(struct xspace_builder *builder)
{
    WIRE_BYTES_FREE_ALL(&builder->space, &builder->plane, &builder->line);
}

static uint64_t name_key(const char **names, size_t *count, uint64_t base, const char *name)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp(names[i], name) == 0)
            return base + i;
    assert_true(*count < XSB_NAMES);
    names[(*count)++] = name;
    return base + *count - 1;
}

uint64_t xsb_stat_key(struct xspace_builder *builder, const char *name)
{
    return name_key(builder->stat_names, &builder->stat_count, builder->key_base, name);
}

uint64_t xsb_event_key(struct xspace_builder *builder, const char *name)
{
    return name_key(builder->event_names, &builder->event_count, builder->key_base, name);
}

static void end_line(struct xspace_builder *builder)
{
    if (!builder->line_name)
        return;
    struct wire_bytes line = {0};
    wire_bytes_put_varint_field(&line, 1, (uint64_t)builder->line_id);
    wire_bytes_put_string_field(&line, 2, builder->line_name);
    if (!builder->late_timestamp)
        wire_bytes_put_varint_field(&line, 3, (uint64_t)builder->line_timestamp_ns);
    wire_bytes_put_data(&line, builder->line.data, builder->line.size);
    if (builder->late_timestamp)
        wire_bytes_put_varint_field(&line, 3, (uint64_t)builder->line_timestamp_ns);
    wire_bytes_put_message_field(&builder->plane, 3, &line);
    wire_bytes_free(&line);
    wire_bytes_free(&builder->line);
    builder->line_name = NULL;
}

void xsb_line(struct xspace_builder *builder, const char *name, int64_t timestamp_ns)
{
    end_line(builder);
    builder->line_name = name;
    builder->line_timestamp_ns = timestamp_ns;
    builder->line_id++;
}

static void put_stat(struct xspace_builder *builder, struct wire_bytes *event,
                     const struct xsb_stat *stat)
{
    struct wire_bytes bytes = {0};
    wire_bytes_put_varint_field(&bytes, 1, xsb_stat_key(builder, stat->name));
    switch (stat->kind) {
    case 'i': wire_bytes_put_varint_field(&bytes, 4, (uint64_t)stat->i); break;
    case 'u': wire_bytes_put_varint_field(&bytes, 3, stat->u); break;
    case 'd': wire_bytes_put_double_field(&bytes, 2, stat->d); break;
    case 's': wire_bytes_put_string_field(&bytes, 5, stat->s); break;
    default: wire_bytes_put_varint_field(&bytes, 7, xsb_stat_key(builder, stat->s)); break;
    }
    wire_bytes_put_message_field(event, 4, &bytes);
    wire_bytes_free(&bytes);
}

void xsb_event(struct xspace_builder *builder, const char *name, int64_t offset_ps,
               int64_t duration_ps, const struct xsb_stat *stats, size_t count)
{
    struct wire_bytes event = {0};
    wire_bytes_put_varint_field(&event, 1,
                                name ? xsb_event_key(builder, name) : builder->key_base + 999);
    wire_bytes_put_varint_field(&event, 2, (uint64_t)offset_ps);
    if (duration_ps)
        wire_bytes_put_varint_field(&event, 3, (uint64_t)duration_ps);
    for (size_t i = 0; i < count; i++)
        put_stat(builder, &event, &stats[i]);
    wire_bytes_put_message_field(&builder->line, 4, &event);
    wire_bytes_free(&event);
}

void xsb_span(struct xspace_builder *builder, const char *name, int64_t offset_ps,
              int64_t duration_ps)
{
    xsb_event(builder, name, offset_ps, duration_ps, NULL, 0);
}

void xsb_memory(struct xspace_builder *builder, int allocation, const char *allocator,
                int64_t offset_ps, int64_t heap_bytes, int64_t bytes, uint64_t address)
{
    XSB_EVENT(builder, allocation ? "MemoryAllocation" : "MemoryDeallocation", offset_ps, 0,
              XSB_REF("allocator_name", allocator), XSB_INT("bytes_reserved", 0),
              XSB_INT("bytes_allocated", heap_bytes), XSB_INT("bytes_available", 1000000),
              XSB_DOUBLE("fragmentation", 0.25), XSB_INT("peak_bytes_in_use", heap_bytes),
              XSB_INT("requested_bytes", bytes), XSB_INT("allocation_bytes", bytes),
              XSB_INT("addr", (int64_t)address));
}

/* A map entry {key, value {id, name}}. */
static void put_entry(struct wire_bytes *plane, uint32_t field, uint64_t key, const char *name)
{
    struct wire_bytes value = {0}, entry = {0};
    wire_bytes_put_varint_field(&value, 1, key);
    wire_bytes_put_string_field(&value, 2, name);
    wire_bytes_put_varint_field(&entry, 1, key);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(plane, field, &entry);
    WIRE_BYTES_FREE_ALL(&value, &entry);
}

void xsb_end_plane(struct xspace_builder *builder)
{
    end_line(builder);
    for (size_t i = 0; i < builder->event_count; i++)
        put_entry(&builder->plane, 4, builder->key_base + i, builder->event_names[i]);
    for (size_t i = 0; i < builder->stat_count; i++)
        put_entry(&builder->plane, 5, builder->key_base + i, builder->stat_names[i]);
    wire_bytes_put_message_field(&builder->space, 1, &builder->plane);
    wire_bytes_free(&builder->plane);
    builder->event_count = builder->stat_count = 0;
    builder->line_id = 0;
}

void xsb_plane(struct xspace_builder *builder, const char *name)
{
    if (builder->plane.size || builder->line_name)
        xsb_end_plane(builder);
    wire_bytes_put_string_field(&builder->plane, 2, name);
}
