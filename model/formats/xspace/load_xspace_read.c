/* load_xspace_read: one XEvent and its XStats, read from the input.
 *
 * Every event of the walked planes passes here, and a memory event has a
 * dozen stats: this is the loader's inner loop. The usual layout (one-byte
 * tags of known fields, lengths that fit) is read by a fast path with no
 * per-field bounds checks but the varints'; anything else, unknown fields
 * or bad bytes included, goes to the generic reader through
 * model/protobuf_wire.h, which gives the same reading or the error with
 * its offset. Stats count when their key is in the plane's stat-metadata
 * map under a name the loader reads; the last of a kind wins (ForEachStat),
 * except "id" and "iter_num", whose first also is kept (GetStat). */
#include "config.h"

#include <endian.h>
#include <string.h>

#include "model/formats/xspace/xspace_internal.h"

static inline void reading_add(struct xspace_reading *reading, uint8_t kind,
                               const struct xspace_value *value)
{
    reading->seen |= 1u << kind;
    reading->values[kind] = *value;
    if (kind == XSPACE_STAT_ALLOCATOR_NAME || kind == XSPACE_STAT_INDEX_ON_HOST ||
        kind == XSPACE_STAT_DEVICE_ORDINAL)
        reading->memory_id_kind = kind;
    if (kind == XSPACE_STAT_STEP_ID && !reading->has_first_id) {
        reading->has_first_id = true;
        reading->first_id = *value;
    } else if (kind == XSPACE_STAT_ITER_NUM && !reading->has_first_iteration) {
        reading->has_first_iteration = true;
        reading->first_iteration = *value;
    }
}

static inline void reading_clear(struct xspace_reading *reading)
{
    reading->seen = 0;
    reading->memory_id_kind = 0;
    reading->has_first_id = reading->has_first_iteration = false;
    reading->first_id.member = reading->first_iteration.member = 0; /* read as "none" */
}

static inline void stat_count(struct xspace_metadata_table *stats, struct xspace_reading *reading,
                              uint64_t key, const struct xspace_value *value)
{
    int kind = xspace_metadata_kind(stats, key);
    if (kind > XSPACE_STAT_OTHER)
        reading_add(reading, (uint8_t)kind, value);
}

/* ---- the fast path ---- */

/* A varint within [*p, end); false when it does not end there. The input
 * holds at least 8 bytes past *p almost always: then the varint's bytes
 * are found in one 8-byte word and its 7-bit groups gathered without a
 * loop (up to 8 bytes, 56 bits: times, sizes and addresses). */
WIRE_INLINE bool varint_fast(const uint8_t **p, const uint8_t *end, const uint8_t *input_end,
                               uint64_t *value)
{
    const uint8_t *q = *p;
    if (q < end && *q < 0x80) {
        *value = *q;
        *p = q + 1;
        return true;
    }
    if (input_end - q >= 8) {
        uint64_t word;
        memcpy(&word, q, sizeof word);
        word = le64toh(word);
        uint64_t stops = ~word & UINT64_C(0x8080808080808080);
        if (stops) {
            unsigned length = (unsigned)__builtin_ctzll(stops) / 8 + 1;
            if ((size_t)(end - q) < length)
                return false;
            uint64_t x = length == 8 ? word : word & ((UINT64_C(1) << (8 * length)) - 1);
            x &= UINT64_C(0x7f7f7f7f7f7f7f7f);
            x = ((x & UINT64_C(0x7f007f007f007f00)) >> 1) | (x & UINT64_C(0x007f007f007f007f));
            x = ((x & UINT64_C(0x3fff00003fff0000)) >> 2) | (x & UINT64_C(0x00003fff00003fff));
            x = ((x & UINT64_C(0x0fffffff00000000)) >> 4) | (x & UINT64_C(0x000000000fffffff));
            *value = x;
            *p = q + length;
            return true;
        }
    }
    uint64_t result = 0;
    for (unsigned i = 0; i < WIRE_VARINT_MAX_BYTES && q + i < end; i++) {
        result |= (uint64_t)(q[i] & 0x7f) << (7 * i);
        if (q[i] < 0x80) {
            *value = result;
            *p = q + i + 1;
            return true;
        }
    }
    return false;
}

/* A length-delimited payload: [*start, *start + length) within end. */
WIRE_INLINE bool payload_fast(const uint8_t **p, const uint8_t *end, const uint8_t *input_end,
                                const uint8_t **start, const uint8_t **stop)
{
    uint64_t length;
    if (!varint_fast(p, end, input_end, &length) || length > (uint64_t)(end - *p))
        return false;
    *start = *p;
    *stop = *p + length;
    *p = *stop;
    return true;
}

WIRE_INLINE bool stat_fast(const uint8_t *p, const uint8_t *end, const uint8_t *base,
                             const uint8_t *input_end, uint64_t *key, struct xspace_value *value)
{
    const uint8_t *start, *stop;
    *key = 0;
    value->member = 0;
    while (p < end) {
        uint8_t tag = *p++;
        switch (tag) {
        case 0x08: /* metadata_id */
            if (!varint_fast(&p, end, input_end, key))
                return false;
            break;
        case 0x11: /* double_value */
            if (end - p < 8)
                return false;
            value->bits = 0;
            for (unsigned i = 0; i < 8; i++)
                value->bits |= (uint64_t)p[i] << (8 * i);
            p += 8;
            value->member = XSPACE_MEMBER_DOUBLE;
            break;
        case 0x18: /* uint64_value */
        case 0x20: /* int64_value */
        case 0x38: /* ref_value */
            if (!varint_fast(&p, end, input_end, &value->bits))
                return false;
            value->member = tag >> 3;
            break;
        case 0x2a: /* str_value */
        case 0x32: /* bytes_value */
        case 0x42: /* compressed_str_value */
            if (!payload_fast(&p, end, input_end, &start, &stop))
                return false;
            value->text = (struct xspace_span){(size_t)(start - base), (size_t)(stop - base)};
            value->member = tag >> 3;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* The stat at [p, end) in the layout every writer uses: a one-byte
 * length, a one-byte key, then the value; false for anything else. */
WIRE_INLINE bool stat_usual(const uint8_t **p, const uint8_t *end, const uint8_t *base,
                              const uint8_t *input_end, uint64_t *key, struct xspace_value *value)
{
    const uint8_t *q = *p;
    if (end - q < 4 || q[0] >= 0x80 || q[1] != 0x08 || q[2] >= 0x80)
        return false;
    const uint8_t *stop = q + 1 + q[0];
    if (stop > end)
        return false;
    *key = q[2];
    if (!stat_fast(q + 3, stop, base, input_end, &(uint64_t){0}, value))
        return false;
    *p = stop;
    return true;
}

static bool event_fast(const struct wire *wire, struct xspace_metadata_table *stats,
                       const struct wire_field *event, struct xspace_event *fields,
                       struct xspace_reading *reading)
{
    const uint8_t *base = wire->bytes, *input_end = base + wire->size;
    const uint8_t *p = base + event->start, *end = base + event->end, *start, *stop;
    /* Kept in registers: the stores into *reading could alias the table. */
    const uint8_t *dense_kinds = stats->dense ? stats->dense_kinds : NULL;
    uint64_t dense_last = stats->dense_last;
    uint32_t seen = 0;
    uint64_t value;
    while (p < end) {
        uint8_t tag = *p++;
        if (tag == 0x22) { /* stats */
            uint64_t key;
            struct xspace_value stat;
            if (!stat_usual(&p, end, base, input_end, &key, &stat) &&
                (!payload_fast(&p, end, input_end, &start, &stop) ||
                 !stat_fast(start, stop, base, input_end, &key, &stat)))
                return false;
            int kind = dense_kinds ? (key <= dense_last ? (int)dense_kinds[key] - 1 : -1)
                                   : xspace_metadata_kind(stats, key);
            if (kind <= XSPACE_STAT_OTHER)
                continue;
            if (kind < XSPACE_STAT_STEP_ID) { /* the usual case: no first-of-a-kind */
                seen |= 1u << kind;
                struct xspace_value *slot = &reading->values[kind];
                slot->member = stat.member;
                slot->bits = stat.bits;
                if (stat.member == XSPACE_MEMBER_STR || stat.member > XSPACE_MEMBER_REF)
                    slot->text = stat.text;
                if (kind <= XSPACE_STAT_DEVICE_ORDINAL)
                    reading->memory_id_kind = (uint8_t)kind;
            } else {
                reading->seen = seen;
                reading_add(reading, (uint8_t)kind, &stat);
                seen = reading->seen;
            }
            continue;
        }
        if ((tag != 0x08 && tag != 0x10 && tag != 0x18 && tag != 0x28) ||
            !varint_fast(&p, end, input_end, &value))
            return false;
        if (tag == 0x08)
            fields->key = value;
        else if (tag == 0x10)
            fields->offset_ps = wire_int64(value);
        else if (tag == 0x18)
            fields->duration_ps = wire_int64(value);
        else
            fields->offset_ps = 0; /* num_occurrences replaces offset_ps (a oneof) */
    }
    reading->seen = seen;
    return true;
}

/* ---- the generic path ---- */

static const char *const stat_field_names[] = {
    [1] = "metadata_id", [2] = "double_value", [3] = "uint64_value", [4] = "int64_value",
    [5] = "str_value", [6] = "bytes_value", [7] = "ref_value", [8] = "compressed_str_value",
};

static const uint8_t stat_field_types[] = {
    [1] = WIRE_VARINT, [2] = WIRE_FIXED64, [3] = WIRE_VARINT, [4] = WIRE_VARINT,
    [5] = WIRE_LENGTH, [6] = WIRE_LENGTH, [7] = WIRE_VARINT, [8] = WIRE_LENGTH,
};

/* One XStat: its key and value (the last of each wins). */
static enum load_status stat_read(const struct wire *wire, const struct wire_field *stat,
                                  uint64_t *key, struct xspace_value *value)
{
    struct wire_field field;
    *key = 0;
    value->member = 0;
    for (size_t position = stat->start; position < stat->end;) {
        enum load_status status = wire_read_field(wire, &position, stat->end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number > 8)
            continue;
        if (field.type != stat_field_types[field.number])
            return wire_expect(wire, &field, stat_field_types[field.number],
                               stat_field_names[field.number]);
        if (field.number == 1) {
            *key = field.value;
            continue;
        }
        value->member = (uint8_t)field.number;
        value->bits = field.value;
        value->text = (struct xspace_span){field.start, field.end};
    }
    return LOAD_OK;
}

static const char *const event_field_names[] = {
    [1] = "metadata_id", [2] = "offset_ps", [3] = "duration_ps", [4] = "stats",
    [5] = "num_occurrences",
};

static enum load_status event_generic(const struct wire *wire,
                                      struct xspace_metadata_table *stats,
                                      const struct wire_field *event, struct xspace_event *fields,
                                      struct xspace_reading *reading)
{
    struct wire_field field;
    for (size_t position = event->start; position < event->end;) {
        enum load_status status = wire_read_field(wire, &position, event->end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number > 5)
            continue;
        uint8_t type = field.number == 4 ? WIRE_LENGTH : WIRE_VARINT;
        if (field.type != type)
            return wire_expect(wire, &field, type, event_field_names[field.number]);
        if (field.number == 1) {
            fields->key = field.value;
        } else if (field.number == 2) {
            fields->offset_ps = wire_int64(field.value);
        } else if (field.number == 3) {
            fields->duration_ps = wire_int64(field.value);
        } else if (field.number == 5) {
            fields->offset_ps = 0;
        } else {
            uint64_t key;
            struct xspace_value value;
            status = stat_read(wire, &field, &key, &value);
            if (status != LOAD_OK)
                return status;
            stat_count(stats, reading, key, &value);
        }
    }
    return LOAD_OK;
}

enum load_status xspace_event_read(const struct wire *wire, struct xspace_metadata_table *stats,
                                   const struct wire_field *event, struct xspace_event *fields,
                                   struct xspace_reading *reading)
{
    *fields = (struct xspace_event){.offset = event->offset};
    reading_clear(reading);
    if (event_fast(wire, stats, event, fields, reading))
        return LOAD_OK;
    *fields = (struct xspace_event){.offset = event->offset};
    reading_clear(reading);
    return event_generic(wire, stats, event, fields, reading);
}
