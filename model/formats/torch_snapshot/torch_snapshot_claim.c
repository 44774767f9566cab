/* torch_snapshot_claim: trace entries read from their bytes (see
 * torch_snapshot_internal.h), the pickle reader's claim_dict
 * (model/decode/pickle.h): once a list has shown that its dicts are
 * trace entries, each next dict of it that is only keys and values the
 * memo already holds or integers (pybind writes every key and action
 * once, every later entry names them by memo index) is read straight
 * into an entry, pair by pair through the same code as a dict the reader
 * built (torch_snapshot_entries.c), with no dict built, memoized and
 * read back. Its entry waits in load->claimed until the list's APPENDS
 * hands over the item that stands for it. The keys of the last entry
 * read are a template for the next (struct ts_claim_template): where its
 * bytes are the same memo gets, place by place, the keys are known
 * without parsing or looking them up; where not, the pairs are read one
 * by one and make the next template.
 * Anything else (a string or a list met for the first time, which the
 * reader must memoize; an opcode this does not read; the file's end) and
 * the dict is left to the reader, which reads it again: nothing is
 * counted or kept before the whole dict is read (a traceback met on the
 * way is interned as the reader's read would intern it).
 * Called by the pickle reader, through the consumer torch_snapshot.c
 * sets up. Must not: memoize, build or keep anything of the pickle. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/string_table.h"
#include "model/util/array_grow.h"

/* In the cache by memo index: not known yet; as an answer: the memo
 * holds nothing there (the claim leaves the dict to the reader). */
#define KEY_NOT_CACHED 0xff
#define ACTION_NOT_CACHED 0xff

static uint32_t le16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static uint32_t le32(const uint8_t *b)
{
    return le16(b) | le16(b + 2) << 16;
}

/* LONG1's n bytes (1 to 8), two's complement little-endian, as the
 * reader reads them; `readable` bytes may be read from b (n at least).
 * With 8 readable on a little-endian machine, one load (an address,
 * six bytes, in every entry: a loop of six was a tenth of the claim). */
static inline int64_t long1_of(const uint8_t *b, unsigned n, size_t readable)
{
    uint64_t raw = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (readable >= 8) {
        memcpy(&raw, b, 8);
        if (n < 8)
            raw &= ((uint64_t)1 << (8 * n)) - 1;
    } else
#endif
    {
        (void)readable;
        for (unsigned i = 0; i < n; i++)
            raw |= (uint64_t)b[i] << (8 * i);
    }
    if (n < 8 && (raw >> (8 * n - 1)) & 1)
        raw |= ~(uint64_t)0 << (8 * n);
    return (int64_t)raw;
}

/* A memo get's index at p (BINGET, LONG_BINGET) and its length; 0 for
 * any other opcode, one cut by the end, or index 2^32 - 1 (no memo holds
 * it, and index + 1 is what the caches and the context keep: the reader
 * refuses it). */
static inline size_t ref_at(const uint8_t *p, size_t left, uint32_t *id)
{
    if (p[0] == 'h' && left >= 2) {
        *id = p[1];
        return 2;
    }
    if (p[0] == 'j' && left >= 5 && le32(p + 1) != UINT32_MAX) {
        *id = le32(p + 1);
        return 5;
    }
    return 0;
}

/* An integer opcode's value (K, M, J, LONG1 of up to 8 bytes) and its
 * length; 0 for any other. */
static inline size_t integer_at(const uint8_t *p, size_t left, int64_t *value)
{
    switch (p[0]) {
    case 'K':
        if (left < 2)
            return 0;
        *value = p[1];
        return 2;
    case 'M':
        if (left < 3)
            return 0;
        *value = le16(p + 1);
        return 3;
    case 'J':
        if (left < 5)
            return 0;
        *value = (int32_t)le32(p + 1);
        return 5;
    case 0x8a:
        if (left < 2 || p[1] > 8 || left - 2 < p[1])
            return 0;
        *value = p[1] ? long1_of(p + 2, p[1], left - 2) : 0;
        return 2 + (size_t)p[1];
    default:
        return 0;
    }
}

/* The value the opcode at p pushes, for the opcodes an entry's pairs
 * use (integer_at's, ref_at's fetched from the memo, None, the bools),
 * and its length; 0 for any other or one cut by the end. */
static size_t value_at(const uint8_t *p, size_t left, struct pickle_memo *memo,
                       struct pickle_value *value)
{
    *value = (struct pickle_value){.kind = PICKLE_INT};
    uint32_t id;
    size_t used = integer_at(p, left, &value->as.integer);
    if (used)
        return used;
    if ((used = ref_at(p, left, &id)))
        return pickle_memo_get(memo, id, value) ? used : 0;
    if (p[0] == 'N') {
        value->kind = PICKLE_NONE;
        return 1;
    }
    if (p[0] == 0x88 || p[0] == 0x89) {
        *value = (struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = p[0] == 0x88};
        return 1;
    }
    return 0;
}

/* The cache's slot for memo index `id` (the cache made: see
 * ts_claim_entry), emptied for it if another held it. */
static inline struct ts_memo_cache *cache_slot(struct ts_load *load, uint32_t id)
{
    struct ts_memo_cache *slot = &load->memo_cache[(id * 2654435761u) >> 20 & (TS_MEMO_CACHE - 1)];
    if (slot->id_plus_one != id + 1)
        *slot = (struct ts_memo_cache){id + 1, KEY_NOT_CACHED, ACTION_NOT_CACHED, UINT32_MAX};
    return slot;
}

/* The memo's value at `id` as an entry key; KEY_NOT_CACHED when
 * there is none there. */
static uint8_t key_by_index(struct ts_load *load, struct pickle_memo *memo, uint32_t id)
{
    struct ts_memo_cache *slot = cache_slot(load, id);
    if (slot->key != KEY_NOT_CACHED)
        return slot->key;
    struct pickle_value key;
    if (!pickle_memo_get(memo, id, &key))
        return KEY_NOT_CACHED;
    return slot->key = ts_entry_key_meaning(load, &key);
}

static inline uint8_t action_by_index(struct ts_load *load, struct pickle_memo *memo, uint32_t id)
{
    struct ts_memo_cache *slot = cache_slot(load, id);
    if (slot->action != ACTION_NOT_CACHED)
        return slot->action;
    struct pickle_value value;
    if (!pickle_memo_get(memo, id, &value))
        return ACTION_NOT_CACHED;
    return slot->action = ts_entry_action_meaning(load, &value);
}

static inline uint32_t traceback_by_index(struct ts_load *load, struct pickle_memo *memo,
                                          uint32_t id)
{
    struct ts_memo_cache *slot = cache_slot(load, id);
    if (slot->traceback != UINT32_MAX)
        return slot->traceback;
    struct pickle_value frames;
    if (!pickle_memo_get(memo, id, &frames))
        return UINT32_MAX;
    return slot->traceback = ts_traceback_of(load, &frames);
}

/* The entry's own context from its pair of memo indices (+1; 0 absent),
 * the last pair's at hand; STRING_ID_NONE when a value is not there or
 * memory runs out. */
static uint32_t context_by_indices(struct ts_load *load, struct pickle_memo *memo,
                                   uint32_t compile, uint32_t metadata)
{
    if (load->claim_context != STRING_ID_NONE && compile == load->claim_compile &&
        metadata == load->claim_metadata)
        return load->claim_context;
    struct pickle_value values[2] = {{.kind = PICKLE_NONE}, {.kind = PICKLE_NONE}};
    if ((compile && !pickle_memo_get(memo, compile - 1, &values[0])) ||
        (metadata && !pickle_memo_get(memo, metadata - 1, &values[1])))
        return STRING_ID_NONE;
    uint32_t context = ts_entry_context(load, &values[0], &values[1]);
    load->claim_compile = compile;
    load->claim_metadata = metadata;
    load->claim_context = context;
    return context;
}

/* What an entry's pairs gave, as they are read. */
struct claim_reading {
    struct ts_entry entry;
    bool has_time;
    uint32_t compile, metadata; /* memo index + 1; 0: absent */
};

/* The value of key `key` at p (`left` bytes) into the reading; its
 * length, 0 when it is not one a claim reads. Always in line: left to
 * the compiler it became a call for each pair, which cost the claims
 * more instructions than the template saved. */
static inline __attribute__((always_inline)) size_t
claim_value(struct ts_load *load, struct pickle_memo *memo, uint8_t key, const uint8_t *p,
            size_t left, struct claim_reading *reading)
{
    uint32_t id;
    int64_t number;
    size_t used;
    switch (key) {
    case KEY_ACTION:
        used = ref_at(p, left, &id);
        reading->entry.action = used ? action_by_index(load, memo, id) : ACTION_NOT_CACHED;
        return reading->entry.action == ACTION_NOT_CACHED ? 0 : used;
    case KEY_ADDRESS:
    case KEY_SIZE:
    case KEY_STREAM:
    case KEY_TIME:
        if (!(used = integer_at(p, left, &number)))
            return 0;
        if (key == KEY_ADDRESS)
            reading->entry.address = (uint64_t)number;
        else if (key == KEY_SIZE)
            reading->entry.size = number;
        else if (key == KEY_STREAM)
            reading->entry.stream = (uint64_t)number;
        else {
            reading->entry.time_us = number;
            reading->has_time = true;
        }
        return used;
    case KEY_COMPILE:
    case KEY_METADATA:
        if (!(used = ref_at(p, left, &id)))
            return 0;
        *(key == KEY_COMPILE ? &reading->compile : &reading->metadata) = id + 1;
        return used;
    case KEY_FRAMES:
        used = ref_at(p, left, &id);
        if (!used || (reading->entry.traceback = traceback_by_index(load, memo, id)) == UINT32_MAX)
            return 0;
        return used;
    default: { /* a key the entry does not read: any value read alike */
        struct pickle_value ignored;
        return value_at(p, left, memo, &ignored);
    }
    }
}

/* The pairs read against the last entry's keys (struct
 * ts_claim_template): the offset of the dict's SETITEMS, or 0 where a
 * key differs or the bytes run short of 16 past a pair's start (the
 * pairs are then read one by one). */
static size_t claim_by_template(struct ts_load *load, struct pickle_memo *memo,
                                const uint8_t *bytes, size_t available,
                                struct claim_reading *reading)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const struct ts_claim_template *template = &load->claim_template;
    size_t at = 3;
    for (size_t place = 0; place < template->count; place++) {
        if (available - at < 16)
            return 0;
        uint64_t word;
        memcpy(&word, bytes + at, 8);
        if ((word & template->places[place].mask) != template->places[place].bytes)
            return 0;
        at += template->places[place].length;
        size_t used = claim_value(load, memo, template->places[place].key, bytes + at,
                                  available - at, reading);
        if (!used)
            return 0;
        at += used;
    }
    return at < available && bytes[at] == 'u' ? at : 0;
#else
    (void)load, (void)memo, (void)bytes, (void)available, (void)reading;
    return 0;
#endif
}

/* The pairs read one by one, each key a memo get looked up; their keys
 * become the template for the next entry. The offset of the dict's
 * SETITEMS, or 0 where a pair is not one a claim reads. */
static size_t claim_by_pairs(struct ts_load *load, struct pickle_memo *memo,
                             const uint8_t *bytes, size_t available,
                             struct claim_reading *reading)
{
    struct ts_claim_template template = {.count = 0};
    bool templated = true;
    uint32_t id;
    size_t at = 3;
    while (at < available && bytes[at] != 'u') {
        size_t used = ref_at(bytes + at, available - at, &id);
        uint8_t key = used ? key_by_index(load, memo, id) : KEY_NOT_CACHED;
        if (key == KEY_NOT_CACHED)
            return 0;
        if (template.count < TS_TEMPLATE_PLACES) {
            uint64_t mask = ((uint64_t)1 << (8 * used)) - 1, word = 0;
            for (size_t i = 0; i < used; i++)
                word |= (uint64_t)bytes[at + i] << (8 * i);
            template.places[template.count].bytes = word;
            template.places[template.count].mask = mask;
            template.places[template.count].length = (uint8_t)used;
            template.places[template.count++].key = key;
        } else {
            templated = false;
        }
        if ((at += used) >= available ||
            !(used = claim_value(load, memo, key, bytes + at, available - at, reading)))
            return 0;
        at += used;
    }
    if (at >= available)
        return 0;
    load->claim_template = templated ? template : (struct ts_claim_template){.count = 0};
    return at;
}

/* What a claimed dict's keys and values are read as: the pairs of
 * ts_entry_pair (torch_snapshot_entries.c) where the key is a memo get,
 * the action, compile_context, user_metadata and frames memo gets, the
 * numbers integers; any other pair and the dict is not claimed. */
size_t ts_claim_entry(void *context, const struct pickle_object *list, const uint8_t *bytes,
                      size_t available, struct pickle_memo *memo)
{
    struct ts_load *load = context;
    /* EMPTY_DICT MEMOIZE MARK: the dict of a protocol 4 or 5 pickler. */
    if (list != load->entry_list || (load->claimed_count && list != load->claimed_list) ||
        available < 4 || bytes[1] != 0x94 || bytes[2] != '(')
        return 0;
    if (!load->memo_cache &&
        !(load->memo_cache = calloc(TS_MEMO_CACHE, sizeof *load->memo_cache)))
        return 0;
    uint64_t generation = pickle_memo_generation(memo);
    if (generation != load->claim_generation) { /* a slot filled again: forget */
        memset(load->memo_cache, 0, TS_MEMO_CACHE * sizeof *load->memo_cache);
        load->claim_template.count = 0;
        load->claim_context = STRING_ID_NONE;
        load->claim_generation = generation;
    }
    struct claim_reading reading = {.entry = {.action = TS_OTHER}};
    size_t at = load->claim_template.count
                    ? claim_by_template(load, memo, bytes, available, &reading)
                    : 0;
    if (!at) {
        reading = (struct claim_reading){.entry = {.action = TS_OTHER}};
        at = claim_by_pairs(load, memo, bytes, available, &reading);
    }
    if (!at)
        return 0;
    /* Room first: nothing is counted unless the entry is kept. */
    if (!array_grow((void **)&load->claimed, &load->claimed_capacity, load->claimed_count,
                    sizeof *load->claimed, 1024) ||
        (reading.entry.context =
             context_by_indices(load, memo, reading.compile, reading.metadata)) == STRING_ID_NONE)
        return 0;
    ts_entry_count(load, &reading.entry, reading.has_time);
    load->claimed[load->claimed_count++] = reading.entry;
    load->claimed_list = list;
    return at + 1; /* SETITEMS */
}
