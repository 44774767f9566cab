/* pickle_value: reading the values the pickle reader built (see pickle.h):
 * a dict's key, a string's text, an int's width, a list's items.
 *
 * Owns: the queries a format reader asks of a value it holds, after
 * pickle_decode built it or as a consumer is handed it.
 * Called by: format readers (model/formats/torch_snapshot/), the tests and
 * the fuzz harness, through pickle.h; never by pickle.c's machine.
 * Must not: build, change or free a value (the machine in pickle.c and the
 * arena own them), know opcodes, or know any format. */
#include "config.h"

#include "model/decode/pickle.h"

#include <string.h>

const struct pickle_value *pickle_dict_get(const struct pickle_value *dict, const char *key)
{
    if (!dict || dict->kind != PICKLE_DICT)
        return NULL;
    const struct pickle_object *object = dict->as.object;
    size_t length = strlen(key);
    for (size_t i = object->count; i >= 2; i -= 2) {
        const struct pickle_value *item = &object->items[i - 2];
        if (item->kind == PICKLE_STR && item->length == length &&
            memcmp(item->as.string, key, length) == 0)
            return &object->items[i - 1];
    }
    return NULL;
}

bool pickle_as_int64(const struct pickle_value *value, int64_t *out)
{
    if (!value || value->kind != PICKLE_INT)
        return false;
    *out = value->as.integer;
    return true;
}

bool pickle_as_uint64(const struct pickle_value *value, uint64_t *out)
{
    if (!value || (value->kind != PICKLE_INT && value->kind != PICKLE_UINT))
        return false;
    *out = value->as.unsigned_;
    return true;
}

const struct pickle_value *pickle_items(const struct pickle_value *value, size_t *count)
{
    *count = 0;
    if (!value || (value->kind != PICKLE_LIST && value->kind != PICKLE_TUPLE))
        return NULL;
    *count = value->as.object->count;
    return value->as.object->items;
}
