/* protobuf_table: decoding a protobuf message onto a flat C struct by a
 * table (field number -> kind and member offset).
 *
 * Owns: the protobuf rules for a message read this way: unknown fields are
 * skipped, a later scalar wins, a repeated submessage merges (its fields
 * land in the same struct), a known field with the wrong wire type is
 * refused with its offset. Strings are interned into a string table with
 * a hint naming their member, so ids repeat cheaply.
 * Called by: the MemoryProfile binary loader (load_protobuf*.c) for every
 * message but the outer ones; any later protobuf format can describe its
 * small messages the same way.
 * Must not: know any particular message (the tables are the caller's), or
 * handle repeated fields other than submessages merged in place. */
#ifndef MEMTOP_PROTOBUF_TABLE_H
#define MEMTOP_PROTOBUF_TABLE_H

#include <stddef.h>

#include "model/decode/protobuf_wire.h"
#include "model/string_table.h"

enum protobuf_kind {
    PROTOBUF_NONE, /* not a field of this message: skipped */
    PROTOBUF_INT64,
    PROTOBUF_UINT64,
    PROTOBUF_DOUBLE,
    PROTOBUF_ENUM,   /* the member is an int */
    PROTOBUF_STRING, /* interned; the member is a uint32_t string id */
    PROTOBUF_MESSAGE,
};

struct protobuf_message_spec;

struct protobuf_field_spec {
    enum protobuf_kind kind;
    const char *name; /* as the .proto spells it, for error messages */
    size_t member;    /* offset of the member in the target struct; for a
                         submessage, where its fields' offsets start */
    const struct protobuf_message_spec *message; /* PROTOBUF_MESSAGE: its fields */
};

struct protobuf_message_spec {
    size_t field_count; /* fields[] is indexed by field number */
    const struct protobuf_field_spec *fields;
};

#define PROTOBUF_FIELD(kind, name, type, member) { kind, name, offsetof(type, member), NULL }
/* A submessage whose fields land in the same struct, at their own offsets
 * or (_AT) at theirs past `base`. */
#define PROTOBUF_SUBMESSAGE(name, spec) { PROTOBUF_MESSAGE, name, 0, &spec }
#define PROTOBUF_SUBMESSAGE_AT(name, spec, base) { PROTOBUF_MESSAGE, name, base, &spec }
#define PROTOBUF_MESSAGE_SPEC(fields) { sizeof fields / sizeof fields[0], fields }

/* Decodes the message [position, end) onto `target`: fields it does not
 * carry keep their values, which is protobuf's merge when `target`
 * already holds some. LOAD_NO_MEMORY ("offset N: out of memory") when a
 * string cannot be interned. */
enum load_status protobuf_table_read(const struct wire *wire, struct string_table *strings,
                                     size_t position, size_t end,
                                     const struct protobuf_message_spec *message, void *target);

/* The string at [start, end) of the input, interned under the hint its
 * member gives (the member's place names the field), as
 * protobuf_table_read() interns it. */
static inline uint32_t protobuf_table_intern(const struct wire *wire,
                                             struct string_table *strings, size_t member,
                                             size_t start, size_t end)
{
    return string_table_intern_hinted(strings, (unsigned)(member / sizeof(uint32_t)),
                                      (const char *)wire->bytes + start, end - start);
}

#endif
