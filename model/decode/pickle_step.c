/* pickle_step: any one opcode of the pickle reader's stack machine (see
 * pickle.h), with every check and every message: the opcodes Python's
 * pickler (protocols 2-5) and TorchScript's pickler write for plain data;
 * every other opcode stops the read with its name.
 * Called by: pickle.c's loop, for the opcodes it does not run in line and
 * for any opcode whose checks did not all pass there (so a refusal, its
 * message and its offset are this file's alone). Must not: loop over the
 * file, or read values for a format (pickle_value.c's). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/decode/pickle_machine.h"

#define NO_MEMO PICKLE_NO_MEMO

static const char *const opcode_names[256] = {
    ['('] = "MARK", ['.'] = "STOP", ['0'] = "POP", ['1'] = "POP_MARK", ['2'] = "DUP",
    ['F'] = "FLOAT", ['I'] = "INT", ['J'] = "BININT", ['K'] = "BININT1", ['L'] = "LONG",
    ['M'] = "BININT2", ['N'] = "NONE", ['P'] = "PERSID", ['Q'] = "BINPERSID",
    ['R'] = "REDUCE", ['S'] = "STRING", ['T'] = "BINSTRING", ['U'] = "SHORT_BINSTRING",
    ['V'] = "UNICODE", ['X'] = "BINUNICODE", ['a'] = "APPEND", ['b'] = "BUILD",
    ['c'] = "GLOBAL", ['d'] = "DICT", ['}'] = "EMPTY_DICT", ['e'] = "APPENDS", ['g'] = "GET",
    ['h'] = "BINGET", ['i'] = "INST", ['j'] = "LONG_BINGET", ['l'] = "LIST",
    [']'] = "EMPTY_LIST", ['o'] = "OBJ", ['p'] = "PUT", ['q'] = "BINPUT",
    ['r'] = "LONG_BINPUT", ['s'] = "SETITEM", ['t'] = "TUPLE", [')'] = "EMPTY_TUPLE",
    ['u'] = "SETITEMS", ['G'] = "BINFLOAT", ['B'] = "BINBYTES", ['C'] = "SHORT_BINBYTES",
    [0x80] = "PROTO", [0x81] = "NEWOBJ", [0x82] = "EXT1", [0x83] = "EXT2", [0x84] = "EXT4",
    [0x85] = "TUPLE1", [0x86] = "TUPLE2", [0x87] = "TUPLE3", [0x88] = "NEWTRUE",
    [0x89] = "NEWFALSE", [0x8a] = "LONG1", [0x8b] = "LONG4", [0x8c] = "SHORT_BINUNICODE",
    [0x8d] = "BINUNICODE8", [0x8e] = "BINBYTES8", [0x8f] = "EMPTY_SET", [0x90] = "ADDITEMS",
    [0x91] = "FROZENSET", [0x92] = "NEWOBJ_EX", [0x93] = "STACK_GLOBAL", [0x94] = "MEMOIZE",
    [0x95] = "FRAME", [0x96] = "BYTEARRAY8", [0x97] = "NEXT_BUFFER",
    [0x98] = "READONLY_BUFFER",
};

const char *pickle_opcode_name(uint8_t opcode)
{
    return opcode_names[opcode];
}

static bool fail(struct machine *m, enum pickle_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(struct machine *m, enum pickle_status status, const char *format, ...)
{
    struct pickle_error *error = m->error;
    error->status = status;
    error->offset = (uint64_t)(m->opcode - m->start);
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error->message, sizeof error->message, format, arguments);
    va_end(arguments);
    return false;
}

static bool no_memory(struct machine *m)
{
    return fail(m, PICKLE_NO_MEMORY, "out of memory");
}

static bool cut(struct machine *m, size_t missing)
{
    return fail(m, PICKLE_CUT, "the pickle is cut short (%s needs %zu more bytes than the file has)",
                opcode_names[*m->opcode], missing);
}

/* n operand bytes, or NULL (the error set) when the file ends first. */
static const uint8_t *operand(struct machine *m, size_t n)
{
    if ((size_t)(m->end - m->p) < n) {
        cut(m, n - (size_t)(m->end - m->p));
        return NULL;
    }
    const uint8_t *at = m->p;
    m->p += n;
    return at;
}

/* Fixed widths, written so that the compiler makes each one load. */
static inline uint32_t le16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static inline uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t le64(const uint8_t *b)
{
    return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

static uint64_t little_endian(const uint8_t *bytes, size_t n)
{
    uint64_t value = 0;
    for (size_t i = n; i-- > 0;)
        value = value << 8 | bytes[i];
    return value;
}

/* ---- the stack ---- */

/* The stack's growth, out of the way of push's path (it runs every opcode). */
static __attribute__((noinline)) bool stack_grow(struct machine *m)
{
    size_t capacity = m->stack_capacity ? m->stack_capacity * 2 : 1024;
    struct pickle_value *grown = realloc(m->stack, capacity * sizeof *grown);
    if (!grown)
        return no_memory(m);
    m->stack = grown;
    m->stack_capacity = capacity;
    return true;
}

static inline bool push(struct machine *m, struct pickle_value value)
{
    if (m->stack_count == m->stack_capacity && !stack_grow(m))
        return false;
    m->stack[m->stack_count++] = value;
    return true;
}

/* Where the values above the innermost mark begin (0 without a mark). */
static size_t mark_base(const struct machine *m)
{
    return m->mark_count ? m->marks[m->mark_count - 1] : 0;
}

/* The values pushed since the innermost mark, which is dropped. */
static bool pop_mark(struct machine *m, size_t *base)
{
    if (!m->mark_count)
        return fail(m, PICKLE_CORRUPT, "%s without a MARK before it", opcode_names[*m->opcode]);
    *base = m->marks[--m->mark_count];
    return true;
}

/* At least n values above the innermost mark. */
static bool need(struct machine *m, size_t n)
{
    if (m->stack_count - mark_base(m) < n)
        return fail(m, PICKLE_CORRUPT, "%s finds the stack empty", opcode_names[*m->opcode]);
    return true;
}

static struct pickle_value object_value(struct pickle_object *object)
{
    return (struct pickle_value){.kind = object->kind, .as.object = object};
}

/* A new container holding `values` (a copy). */
static bool push_new(struct machine *m, uint8_t kind, const struct pickle_value *values,
                     size_t count)
{
    struct pickle_object *object = pickle_arena_object(&m->document->arena);
    if (!object || count > UINT32_MAX / 2)
        return no_memory(m);
    *object = (struct pickle_object){.kind = kind, .memo_id = NO_MEMO};
    if (count && !pickle_arena_items(&m->document->arena, object, count))
        return no_memory(m);
    if (count)
        memcpy(object->items, values, count * sizeof *values);
    object->count = (uint32_t)count;
    return push(m, object_value(object));
}

/* ---- the memo ---- */

/* Room for slot memo_count: a new chunk when the last is full. */
static bool memo_grow(struct machine *m)
{
    if (m->memo_count < m->memo_chunk_count * PICKLE_MEMO_CHUNK)
        return true;
    if (m->memo_chunk_count == m->memo_chunk_capacity) {
        size_t capacity = m->memo_chunk_capacity ? m->memo_chunk_capacity * 2 : 16;
        uint64_t **chunks = realloc(m->memo_chunks, capacity * sizeof *chunks);
        if (!chunks)
            return false;
        m->memo_chunks = chunks;
        uint32_t *live = realloc(m->memo_live, capacity * sizeof *live);
        if (!live)
            return false;
        m->memo_live = live;
        m->memo_chunk_capacity = capacity;
    }
    uint64_t *chunk = malloc(PICKLE_MEMO_CHUNK * sizeof *chunk);
    if (!chunk)
        return false;
    m->memo_chunks[m->memo_chunk_count] = chunk;
    m->memo_live[m->memo_chunk_count++] = 0;
    return true;
}

void pickle_memo_free(struct machine *m)
{
    for (size_t i = 0; i < m->memo_chunk_count; i++)
        free(m->memo_chunks[i]);
    free(m->memo_chunks);
    free(m->memo_live);
    m->memo_chunks = NULL;
    m->memo_live = NULL;
    m->memo_chunk_count = m->memo_chunk_capacity = m->memo_count = 0;
}

static bool memo_put(struct machine *m, uint64_t id)
{
    if (!need(m, 1))
        return false;
    /* Python's picklers number memo slots in order; a slot far past the
     * next one would be a file making the reader grow the memo for nothing. */
    if (id > m->memo_count)
        return fail(m, PICKLE_CORRUPT, "memo slot %llu is out of order (next is %zu)",
                    (unsigned long long)id, m->memo_count);
    if (id < m->memo_count && !pickle_memo_slot(m, id))
        return fail(m, PICKLE_CORRUPT, "memo slot %llu is filled again after its items were "
                                       "read and dropped", (unsigned long long)id);
    struct pickle_value *top = &m->stack[m->stack_count - 1];
    uint64_t slot;
    if (!pickle_memo_pack(m, top, &slot))
        return no_memory(m);
    if (id == m->memo_count) {
        if (!memo_grow(m))
            return no_memory(m);
        m->memo_count++;
        m->memo_live[id >> PICKLE_MEMO_SHIFT]++;
    } else {
        m->memo_generation++;
        if (*pickle_memo_slot(m, id) == MEMO_RECYCLED)
            m->memo_live[id >> PICKLE_MEMO_SHIFT]++;
    }
    if (pickle_is_container(top)) {
        struct pickle_object *object = top->as.object;
        if (object->memo_id != NO_MEMO)
            object->shared = true; /* in two slots: never recycled */
        object->memo_id = (uint32_t)id;
    }
    *pickle_memo_slot(m, id) = slot;
    return true;
}

static bool memo_get(struct machine *m, uint64_t id)
{
    if (id >= m->memo_count)
        return fail(m, PICKLE_CORRUPT, "memo slot %llu was never filled",
                    (unsigned long long)id);
    const uint64_t *at = pickle_memo_slot(m, id);
    if (!at || *at == MEMO_RECYCLED)
        return fail(m, PICKLE_CORRUPT, "memo slot %llu names an item already read and dropped",
                    (unsigned long long)id);
    struct pickle_value value = pickle_memo_unpack(*at);
    if (pickle_is_container(&value))
        value.as.object->shared = true;
    return push(m, value);
}

/* Slot `id` held an object now recycled: a chunk all of whose slots were
 * filled and now hold recycled objects is freed. */
static void memo_drop(struct machine *m, uint64_t id)
{
    size_t chunk = id >> PICKLE_MEMO_SHIFT;
    *pickle_memo_slot(m, id) = MEMO_RECYCLED;
    if (--m->memo_live[chunk] == 0 && (chunk + 1) * PICKLE_MEMO_CHUNK <= m->memo_count) {
        free(m->memo_chunks[chunk]);
        m->memo_chunks[chunk] = NULL;
    }
}

/* ---- scalars ---- */

/* A LONG1/LONG4 integer of n bytes, two's complement little-endian. */
static struct pickle_value long_value(const uint8_t *bytes, uint64_t n)
{
    struct pickle_value value = {.kind = PICKLE_INT};
    if (n == 0)
        return value;
    bool negative = bytes[n - 1] & 0x80;
    if (n <= 8) {
        uint64_t raw = little_endian(bytes, (size_t)n);
        if (negative && n < 8)
            raw |= ~(uint64_t)0 << (8 * n);
        value.as.integer = (int64_t)raw;
        return value;
    }
    /* Past 8 bytes it fits 64 bits only when every extra byte extends the sign. */
    uint64_t low = le64(bytes);
    bool fits = true;
    for (uint64_t i = 8; i < n; i++)
        fits = fits && bytes[i] == (negative ? 0xff : 0x00);
    if (fits && !negative) {
        value.kind = (low >> 63) ? PICKLE_UINT : PICKLE_INT;
        value.as.unsigned_ = low;
    } else if (fits && (low >> 63)) {
        value.as.integer = (int64_t)low;
    } else {
        value.kind = PICKLE_BIG_INT;
        value.as.integer = negative ? -1 : 1;
    }
    return value;
}

static bool push_string(struct machine *m, uint64_t length)
{
    if (length > UINT32_MAX)
        return fail(m, PICKLE_CORRUPT, "a string of %llu bytes", (unsigned long long)length);
    const uint8_t *text = operand(m, (size_t)length);
    return text && push(m, (struct pickle_value){.kind = PICKLE_STR,
                                                 .length = (uint32_t)length,
                                                 .as.string = text});
}

static bool push_float(struct machine *m)
{
    const uint8_t *bytes = operand(m, 8);
    if (!bytes)
        return false;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits = bits << 8 | bytes[i]; /* big-endian, unlike everything else */
    double real;
    memcpy(&real, &bits, sizeof real);
    return push(m, (struct pickle_value){.kind = PICKLE_FLOAT, .as.real = real});
}

/* ---- containers ---- */

/* Gives the container's room back when a consumer took it and no one else
 * can reach it. */
static void recycle(struct machine *m, const struct pickle_value *item)
{
    if (item->kind != PICKLE_LIST && item->kind != PICKLE_DICT)
        return;
    struct pickle_object *object = item->as.object;
    if (object->shared)
        return;
    if (object->memo_id != NO_MEMO && object->memo_id < m->memo_count) {
        const uint64_t *at = pickle_memo_slot(m, object->memo_id);
        if (at && *at == (uint64_t)(uintptr_t)object)
            memo_drop(m, object->memo_id);
    }
    pickle_arena_recycle(&m->document->arena, object);
}

static bool extend(struct machine *m, struct pickle_object *object,
                   const struct pickle_value *values, size_t count)
{
    if (count == 0)
        return true; /* an empty batch: MARK then SETITEMS at once */
    if (object->count + (uint64_t)count > UINT32_MAX)
        return fail(m, PICKLE_CORRUPT, "a container of more than 2^32 items");
    if (!pickle_arena_items(&m->document->arena, object, object->count + count))
        return no_memory(m);
    memcpy(object->items + object->count, values, count * sizeof *values);
    object->count += (uint32_t)count;
    return true;
}

/* APPEND / APPENDS: the values from `base` up go into the list below them. */
static bool append_from(struct machine *m, size_t base)
{
    if (base == 0 || m->stack[base - 1].kind != PICKLE_LIST)
        return fail(m, PICKLE_CORRUPT, "%s onto something that is not a list",
                    opcode_names[*m->opcode]);
    struct pickle_object *list = m->stack[base - 1].as.object;
    const struct pickle_value *items = m->stack + base;
    size_t count = m->stack_count - base;
    int taken = 0;
    if (m->consumer && m->consumer->take_items && count) {
        taken = m->consumer->take_items(m->consumer->context, list, items, count, m->error);
        if (taken < 0) {
            if (m->error->status != PICKLE_NO_MEMORY)
                m->error->status = PICKLE_CONSUMER;
            m->error->offset = (uint64_t)(m->opcode - m->start);
            return false;
        }
    }
    if (taken) {
        list->taken = true;
        list->taken_count += count;
        for (size_t i = 0; i < count; i++)
            recycle(m, &items[i]);
    } else if (!extend(m, list, items, count)) {
        return false;
    }
    m->stack_count = base;
    return true;
}

/* SETITEM / SETITEMS: key, value pairs from `base` up go into the dict. */
static bool set_from(struct machine *m, size_t base)
{
    if (base == 0 || m->stack[base - 1].kind != PICKLE_DICT)
        return fail(m, PICKLE_CORRUPT, "%s onto something that is not a dict",
                    opcode_names[*m->opcode]);
    if ((m->stack_count - base) % 2)
        return fail(m, PICKLE_CORRUPT, "%s with a key and no value", opcode_names[*m->opcode]);
    if (!extend(m, m->stack[base - 1].as.object, m->stack + base, m->stack_count - base))
        return false;
    m->stack_count = base;
    return true;
}

/* TUPLE, LIST, DICT: a new container of the values above the mark. */
static bool build_from_mark(struct machine *m, uint8_t kind)
{
    size_t base = 0;
    if (!pop_mark(m, &base))
        return false;
    size_t count = m->stack_count - base;
    if (kind == PICKLE_DICT && count % 2)
        return fail(m, PICKLE_CORRUPT, "DICT with a key and no value");
    m->stack_count = base;
    /* The values stay in the stack's room past its count: push_new copies
     * them before it pushes the container over the first of them. */
    /* An empty container: the stack may never have been allocated. */
    return push_new(m, kind, count ? m->stack + base : NULL, count);
}

static bool tuple_of(struct machine *m, size_t n)
{
    if (!need(m, n))
        return false;
    m->stack_count -= n;
    struct pickle_value values[3];
    memcpy(values, m->stack + m->stack_count, n * sizeof *values);
    return push_new(m, PICKLE_TUPLE, values, n);
}

static bool mark(struct machine *m)
{
    if (m->mark_count == m->mark_capacity) {
        size_t capacity = m->mark_capacity ? m->mark_capacity * 2 : 64;
        size_t *grown = realloc(m->marks, capacity * sizeof *grown);
        if (!grown)
            return no_memory(m);
        m->marks = grown;
        m->mark_capacity = capacity;
    }
    m->marks[m->mark_count++] = m->stack_count;
    return true;
}

/* ---- the loop ---- */

static bool refuse(struct machine *m)
{
    uint8_t opcode = *m->opcode;
    if (!opcode_names[opcode])
        return fail(m, PICKLE_CORRUPT, "byte 0x%02x is no pickle opcode", opcode);
    return fail(m, PICKLE_OBJECTS, "%s", opcode_names[opcode]);
}

static bool protocol(struct machine *m)
{
    const uint8_t *version = operand(m, 1);
    if (!version)
        return false;
    if (*version < 2 || *version > 5)
        return fail(m, PICKLE_CORRUPT, "pickle protocol %u (memtop reads 2 to 5)", *version);
    m->document->protocol = *version;
    return true;
}

bool pickle_step(struct machine *m, uint8_t opcode)
{
    const uint8_t *arg;
    size_t base = 0;
    switch (opcode) {
    case 0x80: return protocol(m);
    case 0x95: return operand(m, 8) != NULL; /* FRAME: only a hint */
    case '(': return mark(m);
    case '}': return push_new(m, PICKLE_DICT, NULL, 0);
    case ']': return push_new(m, PICKLE_LIST, NULL, 0);
    case ')': return push_new(m, PICKLE_TUPLE, NULL, 0);
    case 'N': return push(m, (struct pickle_value){.kind = PICKLE_NONE});
    case 0x88: return push(m, (struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = true});
    case 0x89: return push(m, (struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = false});
    case 'K':
        return (arg = operand(m, 1)) &&
               push(m, (struct pickle_value){.kind = PICKLE_INT, .as.integer = arg[0]});
    case 'M':
        return (arg = operand(m, 2)) &&
               push(m, (struct pickle_value){.kind = PICKLE_INT,
                                             .as.integer = (int64_t)le16(arg)});
    case 'J':
        return (arg = operand(m, 4)) &&
               push(m, (struct pickle_value){
                           .kind = PICKLE_INT,
                           .as.integer = (int32_t)le32(arg)});
    case 0x8a:
        return (arg = operand(m, 1)) && (arg = operand(m, arg[0])) &&
               push(m, long_value(arg, m->p - arg));
    case 0x8b:
        if (!(arg = operand(m, 4)))
            return false;
        uint64_t n = le32(arg);
        return (arg = operand(m, (size_t)n)) && push(m, long_value(arg, n));
    case 'G': return push_float(m);
    case 0x8c: return (arg = operand(m, 1)) && push_string(m, arg[0]);
    case 'X': return (arg = operand(m, 4)) && push_string(m, le32(arg));
    case 0x8d: return (arg = operand(m, 8)) && push_string(m, le64(arg));
    case 0x94: return memo_put(m, m->memo_count);
    case 'q': return (arg = operand(m, 1)) && memo_put(m, arg[0]);
    case 'r': return (arg = operand(m, 4)) && memo_put(m, le32(arg));
    case 'h': return (arg = operand(m, 1)) && memo_get(m, arg[0]);
    case 'j': return (arg = operand(m, 4)) && memo_get(m, le32(arg));
    case 'a': return need(m, 2) && append_from(m, m->stack_count - 1);
    case 'e': return pop_mark(m, &base) && append_from(m, base);
    case 's': return need(m, 3) && set_from(m, m->stack_count - 2);
    case 'u': return pop_mark(m, &base) && set_from(m, base);
    case 't': return build_from_mark(m, PICKLE_TUPLE);
    case 'l': return build_from_mark(m, PICKLE_LIST);
    case 'd': return build_from_mark(m, PICKLE_DICT);
    case 0x85: return tuple_of(m, 1);
    case 0x86: return tuple_of(m, 2);
    case 0x87: return tuple_of(m, 3);
    case '0': return need(m, 1) && (m->stack_count--, true);
    case '1': return pop_mark(m, &base) && (m->stack_count = base, true);
    case '2': {
        if (!need(m, 1))
            return false;
        struct pickle_value top = m->stack[m->stack_count - 1];
        if (pickle_is_container(&top))
            top.as.object->shared = true;
        return push(m, top);
    }
    default: return refuse(m);
    }
}

bool pickle_step_stop(struct machine *m)
{
    if (m->stack_count == 0)
        return fail(m, PICKLE_CORRUPT, "STOP with nothing on the stack");
    m->document->root = m->stack[m->stack_count - 1];
    return true;
}

bool pickle_step_cut(struct machine *m)
{
    m->opcode = m->end;
    return fail(m, PICKLE_CUT, "the pickle is cut short (it ends before its STOP)");
}
