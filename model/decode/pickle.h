/* pickle: a reader of Python's pickle format, for the plain data that
 * PyTorch's memory snapshots hold (dicts, lists, tuples, str, int, float,
 * bool, None), whatever the data means.
 *
 * Owns: the stack machine of protocols 2 to 5 restricted to the opcodes
 * that build plain data (model/formats/torch_snapshot/ lists them: PROTO,
 * FRAME, STOP, MARK, the container, integer, float, string and memo
 * opcodes), and the objects it builds: in one arena, no malloc per object;
 * strings point into the input (never copied); the memo holds references,
 * so a BINGET of a dict yields the same dict again, never a copy (a
 * reader may intern by object identity: one frame dict, one traceback
 * list). A consumer can take the items an APPENDS adds to a list as they
 * come (a trace of millions of entries then never sits in memory whole),
 * and read a dict bound for a list itself from its bytes (claim_dict).
 * Called by: format readers (model/formats/torch_snapshot/), the tests and
 * the fuzz harness.
 * Must not: run anything from the file: an opcode that names a class or a
 * function (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, NEWOBJ, ...) or an
 * out-of-band buffer is refused, never followed. Know any format: what
 * the data means is the caller's. Print. */
#ifndef MEMTOP_DECODE_PICKLE_H
#define MEMTOP_DECODE_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pickle_kind {
    PICKLE_NONE,
    PICKLE_BOOL,
    PICKLE_INT,     /* fits int64 */
    PICKLE_UINT,    /* 2^63 .. 2^64-1 (LONG1 of 9 bytes) */
    PICKLE_BIG_INT, /* outside both: kept as its sign only */
    PICKLE_FLOAT,
    PICKLE_STR,
    PICKLE_LIST,
    PICKLE_DICT,
    PICKLE_TUPLE,
    /* A dict a consumer read itself (claim_dict below): an item only it
     * knows, with no value here. */
    PICKLE_CLAIMED,
};

struct pickle_object;
struct pickle_memo; /* the reader's memo, as claim_dict sees it */

/* One value: small ones inline, strings as a pointer into the input,
 * containers as a pointer to the one shared object. */
struct pickle_value {
    uint8_t kind;    /* enum pickle_kind */
    uint32_t length; /* PICKLE_STR: bytes */
    union {
        bool boolean;
        int64_t integer;    /* PICKLE_INT; PICKLE_BIG_INT: -1 or 1 */
        uint64_t unsigned_; /* PICKLE_UINT */
        double real;
        const uint8_t *string; /* UTF-8 as the file has it, not NUL-terminated */
        struct pickle_object *object;
    } as;
};

/* A list, dict or tuple. A dict's items are key, value, key, value ... */
struct pickle_object {
    uint8_t kind;   /* PICKLE_LIST, PICKLE_DICT or PICKLE_TUPLE */
    bool shared;    /* fetched from the memo at least once (never recycled) */
    bool taken;     /* a consumer took (some of) its items: `count` counts them, `items` not */
    uint32_t memo_id; /* the last memo slot it went into; UINT32_MAX none */
    uint32_t count;   /* values in items (2 per dict pair) */
    uint32_t capacity;
    uint64_t taken_count; /* items the consumer took */
    struct pickle_value *items;
};

enum pickle_status {
    PICKLE_OK = 0,
    PICKLE_CORRUPT,     /* not a pickle, or a broken one */
    PICKLE_CUT,         /* ends before STOP */
    PICKLE_OBJECTS,     /* needs a class, a function or a buffer: refused */
    PICKLE_NO_MEMORY,
    PICKLE_CONSUMER,    /* the consumer said stop (its own message) */
};

struct pickle_error {
    enum pickle_status status;
    uint64_t offset; /* the opcode's byte */
    char message[160];
};

/* What a consumer may do as items come. Every member may be NULL. */
struct pickle_consumer {
    void *context;
    /* `count` items are about to be appended to `list` (APPEND or
     * APPENDS). Return 1 to take them: the list then counts them but
     * does not hold them, and each item that is a dict or list no one
     * fetched from the memo is recycled (a later fetch of it is refused).
     * Return 0 to leave them to the list; -1 to stop with `error` set
     * (status PICKLE_CONSUMER). */
    int (*take_items)(void *context, struct pickle_object *list,
                      const struct pickle_value *items, size_t count,
                      struct pickle_error *error);
    /* The reader is past byte `offset` (called about every MiB). */
    void (*advance)(void *context, size_t offset);
    /* The reader is at a dict (EMPTY_DICT at bytes[0], `available` bytes
     * of the file from there) that goes on the stack above `list`, the
     * list under the innermost mark. A consumer that reads such dicts
     * itself may read this one whole, fetching from the memo only through
     * pickle_memo_get, and return the bytes it read: exactly EMPTY_DICT,
     * MEMOIZE, MARK, the key and value opcodes, SETITEMS, nothing else
     * memoized. A PICKLE_CLAIMED item then stands in its place (the
     * consumer takes it with the list's next items) and the dict's memo
     * slot refuses a fetch, as a taken dict's does. 0: the reader reads
     * it as any dict. The reader asks only where it runs in line, so a
     * consumer must read claimed and unclaimed dicts alike. */
    size_t (*claim_dict)(void *context, const struct pickle_object *list, const uint8_t *bytes,
                         size_t available, struct pickle_memo *memo);
};

/* memo[id] into *value (a container's object marked as fetched, as a
 * memo get marks it); false when there is none or it was taken. For a
 * consumer's claim_dict. */
bool pickle_memo_get(struct pickle_memo *memo, uint64_t id, struct pickle_value *value);
/* Changes whenever a memo slot filled before is filled again: what a
 * value got by index may be cached against (in protocol 4 and 5 every
 * slot is filled once). */
uint64_t pickle_memo_generation(const struct pickle_memo *memo);

struct pickle_document;

/* Reads [bytes, bytes+size) up to STOP. On PICKLE_OK *out holds the
 * result (free it with pickle_document_free; its strings point into
 * `bytes`, which must outlive it). Otherwise *out is NULL and `error`
 * says what and where. */
enum pickle_status pickle_decode(const uint8_t *bytes, size_t size,
                                 const struct pickle_consumer *consumer,
                                 struct pickle_document **out, struct pickle_error *error);
void pickle_document_free(struct pickle_document *document);

/* The value STOP left on top, and the protocol PROTO named (0 without). */
struct pickle_value pickle_document_root(const struct pickle_document *document);
int pickle_document_protocol(const struct pickle_document *document);

/* The value of `key` in a dict, or NULL (also for a non-dict). A key
 * that is in the dict twice: the later one, as Python's dict keeps. */
const struct pickle_value *pickle_dict_get(const struct pickle_value *dict, const char *key);
/* Whether v is the string `text`. In line (the one query defined here,
 * not in pickle_value.c): a format asks it of every action and key it
 * reads, most answers are "no" at the first byte, and where `text` is a
 * literal the compiler turns strlen and memcmp into a compare or two. */
static inline bool pickle_is_string(const struct pickle_value *value, const char *text)
{
    if (!value || value->kind != PICKLE_STR)
        return false;
    if (value->length == 0 || text[0] == '\0')
        return value->length == 0 && text[0] == '\0';
    if (value->as.string[0] != (uint8_t)text[0])
        return false;
    size_t length = strlen(text);
    return value->length == length && memcmp(value->as.string, text, length) == 0;
}
/* An int that fits int64 into *out; false for anything else. */
bool pickle_as_int64(const struct pickle_value *value, int64_t *out);
/* An int that fits uint64 (PICKLE_UINT, or PICKLE_INT >= 0; a negative
 * one read two's-complement, as a C pointer printed by Python is not). */
bool pickle_as_uint64(const struct pickle_value *value, uint64_t *out);
/* A list's or tuple's items (NULL, 0 for anything else, or for a list
 * whose items a consumer took). */
const struct pickle_value *pickle_items(const struct pickle_value *value, size_t *count);

/* The opcode's name for messages ("GLOBAL"), or NULL for a byte that is
 * no opcode of any protocol. */
const char *pickle_opcode_name(uint8_t opcode);

#endif
