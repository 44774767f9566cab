#include "config.h"

#include "model/decode/proto3_json.h"

#include "model/decode/json_string.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LLONG_MAX == INT64_MAX && ULLONG_MAX == UINT64_MAX,
               "strtoll/strtoull must cover exactly the 64-bit range");

/* ---- scalars ---- */

static bool text_is_digits(const char *text)
{
    if (*text == '\0')
        return false;
    for (; *text; text++)
        if (*text < '0' || *text > '9')
            return false;
    return true;
}

/* Decimal digits with an optional minus, as proto3 JSON quotes int64;
 * strtoll rejects what overflows. */
static bool text_to_int64(const char *text, int64_t *out)
{
    if (!text_is_digits(text[0] == '-' ? text + 1 : text))
        return false;
    errno = 0;
    long long value = strtoll(text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = value;
    return true;
}

/* No minus at all: strtoull would wrap "-1" to the maximum. */
static bool text_to_uint64(const char *text, uint64_t *out)
{
    if (!text_is_digits(text))
        return false;
    errno = 0;
    unsigned long long value = strtoull(text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = value;
    return true;
}

/* A bare number arrives as a double: only integral values inside the
 * range are integers (-2^63 and 2^63 are exact doubles). */
static bool number_to_int64(double number, int64_t *out)
{
    if (!(number >= -9223372036854775808.0 && number < 9223372036854775808.0))
        return false;
    int64_t value = (int64_t)number;
    if ((double)value != number)
        return false;
    *out = value;
    return true;
}

static bool number_to_uint64(double number, uint64_t *out)
{
    if (!(number >= 0.0 && number < 18446744073709551616.0))
        return false;
    uint64_t value = (uint64_t)number;
    if ((double)value != number)
        return false;
    *out = value;
    return true;
}

/* A string value to read as a number or a name: all of its bytes, so
 * that one holding a NUL ("1\u0000") is no number and no name (nor is
 * "", which stands for it). */
static const char *scalar_text(const cJSON *value)
{
    return text_has_nul(json_string_text(value)) ? "" : value->valuestring;
}

static bool value_to_int64(const cJSON *value, int64_t *out)
{
    if (cJSON_IsString(value))
        return text_to_int64(scalar_text(value), out);
    return cJSON_IsNumber(value) && number_to_int64(value->valuedouble, out);
}

static bool value_to_int32(const cJSON *value, int32_t *out)
{
    int64_t wide;
    if (!value_to_int64(value, &wide) || wide < INT32_MIN || wide > INT32_MAX)
        return false;
    *out = (int32_t)wide;
    return true;
}

/* JSON's number grammar (leading zeros allowed): strtod alone would also
 * take "inf", "0x1p3" and leading blanks. */
static bool text_is_decimal_number(const char *text)
{
    const char *p = text;
    if (*p == '-')
        p++;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == digits)
        return false;
    if (*p == '.') {
        digits = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return false;
    }
    return *p == '\0';
}

/* strtod reads the locale's decimal point, and the viewer sets a locale:
 * swap it in, as cJSON does for bare numbers. */
static bool text_to_double(const char *text, double *out)
{
    if (strcmp(text, "NaN") == 0) {
        *out = NAN;
        return true;
    }
    if (strcmp(text, "Infinity") == 0 || strcmp(text, "-Infinity") == 0) {
        *out = text[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    char buffer[64];
    size_t length = strlen(text);
    if (!text_is_decimal_number(text) || length >= sizeof buffer)
        return false;
    memcpy(buffer, text, length + 1);
    char *point = strchr(buffer, '.');
    if (point)
        *point = localeconv()->decimal_point[0];
    char *end;
    double value = strtod(buffer, &end);
    if (*end != '\0' || isinf(value))
        return false;
    *out = value;
    return true;
}

static bool value_to_uint64(const cJSON *value, uint64_t *out)
{
    return cJSON_IsString(value) ? text_to_uint64(scalar_text(value), out)
                                 : cJSON_IsNumber(value) && number_to_uint64(value->valuedouble, out);
}

/* A bare number that overflowed to infinity is refused like "1e999". */
static bool value_to_double(const cJSON *value, double *out)
{
    if (cJSON_IsNumber(value) && !isinf(value->valuedouble)) {
        *out = value->valuedouble;
        return true;
    }
    return cJSON_IsString(value) && text_to_double(scalar_text(value), out);
}

/* LOAD_OK when the value converted, else "PATH: expected EXPECTED, got VALUE". */
static enum load_status json_converted(const struct json_reader *reader, const cJSON *value,
                                       const struct json_path *path, bool converted,
                                       const char *expected)
{
    return converted ? LOAD_OK : json_fail(reader->error, path, expected, value);
}

/* By name, or by number; numbers outside the enum are kept as they are. */
static enum load_status json_read_enum(const struct json_reader *reader, const cJSON *value,
                                       const struct json_path *path,
                                       const struct json_enum *enumeration, int *out)
{
    if (cJSON_IsString(value)) {
        for (size_t number = 0; number < enumeration->count; number++) {
            if (strcmp(scalar_text(value), enumeration->name_of((int)number)) == 0) {
                *out = (int)number;
                return LOAD_OK;
            }
        }
    }
    int32_t number;
    if (value_to_int32(value, &number)) {
        *out = number;
        return LOAD_OK;
    }
    char expected[96];
    snprintf(expected, sizeof expected, "a %s name or number", enumeration->type_name);
    return json_fail(reader->error, path, expected, value);
}

enum load_status proto3_json_read_string(const struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, unsigned hint,
                                         uint32_t *out)
{
    if (!cJSON_IsString(value))
        return json_fail(reader->error, path, "a string", value);
    struct text text = json_string_text(value);
    uint32_t id = string_table_intern_hinted(reader->strings, hint, text.bytes, text.length);
    if (id == STRING_ID_NONE)
        return json_no_memory(reader->error);
    *out = id;
    return LOAD_OK;
}

/* ---- messages by table ---- */

/* The first bytes differ for most names tried: no call then. */
bool proto3_json_key_is(const char *key, const char *json_name, const char *proto_name)
{
    return (key[0] == json_name[0] && strcmp(key, json_name) == 0) ||
           (key[0] == proto_name[0] && strcmp(key, proto_name) == 0);
}

enum load_status proto3_json_expect_object(const struct json_reader *reader, const cJSON *value,
                                           const struct json_path *path)
{
    return cJSON_IsObject(value) ? LOAD_OK : json_fail(reader->error, path, "an object", value);
}

enum load_status proto3_json_expect_array(const struct json_reader *reader, const cJSON *value,
                                          const struct json_path *path)
{
    return cJSON_IsArray(value) ? LOAD_OK : json_fail(reader->error, path, "an array", value);
}

static enum load_status json_read_value(const struct json_reader *reader, const cJSON *value,
                                        const struct json_path *path,
                                        const struct json_field *field, void *target)
{
    void *out = (char *)target + field->offset;
    switch (field->kind) {
    case JSON_INT32:
        return json_converted(reader, value, path, value_to_int32(value, out), "a 32-bit integer");
    case JSON_INT64:
        return json_converted(reader, value, path, value_to_int64(value, out), "a 64-bit integer");
    case JSON_UINT64:
        return json_converted(reader, value, path, value_to_uint64(value, out),
                              "an unsigned 64-bit integer");
    case JSON_DOUBLE:
        return json_converted(reader, value, path, value_to_double(value, out), "a number");
    case JSON_ENUM: return json_read_enum(reader, value, path, field->enumeration, out);
    case JSON_STRING:
        /* The member's place names the field: a hint for the string table. */
        return proto3_json_read_string(reader, value, path,
                                       (unsigned)(field->offset / sizeof(uint32_t)), out);
    case JSON_MESSAGE:
        return proto3_json_read_message(reader, value, path, field->message, out);
    }
    return LOAD_OK;
}

enum load_status proto3_json_read_member(const struct json_reader *reader, const cJSON *member,
                                         const struct json_path *path,
                                         const struct json_message *message, void *target)
{
    if (cJSON_IsNull(member))
        return LOAD_OK;
    for (size_t i = 0; i < message->field_count; i++) {
        const struct json_field *field = &message->fields[i];
        if (proto3_json_key_is(member->string, field->json_name, field->proto_name))
            return json_read_value(reader, member, path, field, target);
    }
    return LOAD_OK;
}

enum load_status proto3_json_read_message(const struct json_reader *reader, const cJSON *object,
                                          const struct json_path *path,
                                          const struct json_message *message, void *target)
{
    enum load_status status = proto3_json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        struct json_path field = {path, member->string, 0, 0};
        status = proto3_json_read_member(reader, member, &field, message, target);
    }
    return status;
}
