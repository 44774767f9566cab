/* proto3_json: reading protobuf messages written as proto3 JSON (what
 * MessageToJsonString writes), one cJSON object at a time, by table.
 *
 * Owns: what a proto3 JSON reader must accept beyond what writers emit:
 * the .proto field names besides lowerCamelCase, 64-bit integers as
 * strings or bare numbers, doubles as strings ("NaN", "Infinity"), enums
 * by name or number, null for "default", unknown keys ignored; and the one
 * loop over an object's members that every message reader uses (a table
 * says where each field lands in a flat C struct; a submessage's fields
 * land in the same struct). Errors name the path ("a.b[3].c: expected a
 * 64-bit integer, got \"x\"").
 * Called by: the MemoryProfile JSON loader (load_json.c); any JSON format
 * whose objects map onto flat structs.
 * Must not: walk a document (json_stream.h does) or know any schema. */
#ifndef MEMTOP_PROTO3_JSON_H
#define MEMTOP_PROTO3_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode/json_stream.h"
#include "model/string_table.h"

/* Where values read go: errors, and the strings (interned). */
struct json_reader {
    struct load_error *error;
    struct string_table *strings;
};

enum json_kind {
    JSON_INT32,
    JSON_INT64,
    JSON_UINT64,
    JSON_DOUBLE,
    JSON_ENUM,    /* by name or number; the member is an int */
    JSON_STRING,  /* interned; the member is a uint32_t string id */
    JSON_MESSAGE, /* a submessage whose fields land in the same struct,
                     their offsets counted from the field's own */
};

/* An enum: the name of each value 0..count-1. */
struct json_enum {
    const char *type_name; /* "MemoryActivity", for errors */
    const char *(*name_of)(int value);
    size_t count;
};

struct json_message;

/* One field of a message and where it lands in the C struct. */
struct json_field {
    const char *json_name;  /* lowerCamelCase, as writers write it */
    const char *proto_name; /* as the .proto spells it */
    enum json_kind kind;
    size_t offset;
    const struct json_message *message;  /* JSON_MESSAGE */
    const struct json_enum *enumeration; /* JSON_ENUM */
};

struct json_message {
    const struct json_field *fields;
    size_t field_count;
};

#define JSON_FIELD(json, proto, kind, type, member) \
    { json, proto, kind, offsetof(type, member), NULL, NULL }
#define JSON_ENUM_FIELD(json, proto, type, member, enumeration) \
    { json, proto, JSON_ENUM, offsetof(type, member), NULL, &enumeration }
#define JSON_SUBMESSAGE(json, proto, message) { json, proto, JSON_MESSAGE, 0, &message, NULL }
#define JSON_SUBMESSAGE_AT(json, proto, message, base) \
    { json, proto, JSON_MESSAGE, base, &message, NULL }
#define JSON_MESSAGE_OF(fields) { fields, sizeof(fields) / sizeof(fields)[0] }

/* Reads `object` (which must be an object) onto `target`: null members
 * keep their defaults, unknown ones are ignored. */
enum load_status proto3_json_read_message(const struct json_reader *reader, const cJSON *object,
                                          const struct json_path *path,
                                          const struct json_message *message, void *target);
/* One member, when the message's table names it (a no-op otherwise); a
 * null member keeps its default. */
enum load_status proto3_json_read_member(const struct json_reader *reader, const cJSON *member,
                                         const struct json_path *path,
                                         const struct json_message *message, void *target);

/* Whether a member's name is the field's, either spelling. */
bool proto3_json_key_is(const char *key, const char *json_name, const char *proto_name);

enum load_status proto3_json_expect_object(const struct json_reader *reader, const cJSON *value,
                                           const struct json_path *path);
enum load_status proto3_json_expect_array(const struct json_reader *reader, const cJSON *value,
                                          const struct json_path *path);

/* Scalars, for readers outside a table. */
enum load_status proto3_json_read_string(const struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, unsigned hint,
                                         uint32_t *out);

#endif
