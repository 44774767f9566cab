/* pickle: the reader's loop and its document (see pickle.h).
 *
 * The loop keeps the stack in locals and runs in line the opcodes a
 * snapshot is made of (the memo's gets and puts, MARK, EMPTY_DICT/LIST,
 * SETITEMS, the integers, strings, None, bools and FRAME: all of a trace
 * entry's), each only when all of its checks pass at once and only up to
 * SAFE_TAIL bytes from the end of the file. Anything else (another opcode,
 * a check that fails, a stack, mark list or memo that must grow, APPENDS
 * and its consumer, the last bytes) goes to pickle_step.c, which runs that
 * opcode again from its first byte with every check: what a file is
 * refused for, the message and the offset are pickle_step.c's alone, and
 * the two paths cannot disagree on them. Nothing in line has an effect
 * before all its checks passed. In line too, a consumer may read a dict
 * of a list it knows whole from the bytes (claim_dict: a trace entry
 * without a dict built and read back).
 * Reading the values it built (pickle_dict_get, ...) is pickle_value.c's. */
#include "config.h"

#include "model/decode/pickle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/decode/pickle_machine.h"

#define ADVANCE_STEP ((size_t)1 << 20)

/* Fixed widths, written so that the compiler makes each one load. */
static inline uint32_t load16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static inline uint32_t load32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t load64(const uint8_t *b)
{
    return (uint64_t)load32(b) | (uint64_t)load32(b + 4) << 32;
}

/* LONG1 of 1 to 8 bytes at `bytes`, two's complement (8 bytes readable). */
static inline int64_t long1_value(const uint8_t *bytes, unsigned n)
{
    uint64_t raw = load64(bytes);
    if (n < 8) {
        unsigned bits = 8 * n;
        raw &= ((uint64_t)1 << bits) - 1;
        if (raw >> (bits - 1))
            raw |= ~(uint64_t)0 << bits;
    }
    return (int64_t)raw;
}

/* The hot state of the machine, in locals while the loop runs in line. */
struct hot {
    const uint8_t *p;
    struct pickle_value *stack;
    size_t count, capacity;
    size_t floor; /* where the values above the innermost mark begin */
};

static void hot_load(struct hot *h, const struct machine *m)
{
    h->p = m->p;
    h->stack = m->stack;
    h->count = m->stack_count;
    h->capacity = m->stack_capacity;
    h->floor = m->mark_count ? m->marks[m->mark_count - 1] : 0;
}

/* memo[id] = top of the stack, when nothing needs checking or growing. */
static inline bool memo_put_fast(struct machine *m, const struct hot *h, uint64_t id)
{
    uint64_t slot;
    /* A new slot within the last chunk only: a new chunk, a slot filled
     * again (the chunks' counts) and every check are pickle_step's. */
    if (h->count <= h->floor || id != m->memo_count || (id & (PICKLE_MEMO_CHUNK - 1)) == 0 ||
        !pickle_memo_pack(m, &h->stack[h->count - 1], &slot))
        return false;
    if ((slot & MEMO_TAG) == MEMO_OBJECT) {
        struct pickle_object *object = (struct pickle_object *)(uintptr_t)slot;
        if (object->memo_id != PICKLE_NO_MEMO)
            object->shared = true; /* in two slots: never recycled */
        object->memo_id = (uint32_t)id;
    }
    m->memo_count++;
    m->memo_live[id >> PICKLE_MEMO_SHIFT]++;
    *pickle_memo_slot(m, id) = slot;
    return true;
}

/* Push memo[id], when it is there and the stack has room. */
static inline bool memo_get_fast(struct machine *m, struct hot *h, uint64_t id)
{
    if (id >= m->memo_count || h->count == h->capacity ||
        !m->memo_chunks[id >> PICKLE_MEMO_SHIFT])
        return false; /* pickle_step says what is wrong */
    uint64_t slot = *pickle_memo_slot(m, id);
    if ((slot & MEMO_TAG) == MEMO_OBJECT) {
        struct pickle_object *object = (struct pickle_object *)(uintptr_t)slot;
        object->shared = true;
        h->stack[h->count++] = (struct pickle_value){.kind = object->kind, .as.object = object};
        return true;
    }
    if (slot == MEMO_RECYCLED)
        return false; /* pickle_step says so */
    h->stack[h->count++] = *(const struct pickle_value *)(uintptr_t)(slot & ~(uint64_t)MEMO_TAG);
    return true;
}

static inline bool push_container_fast(struct machine *m, struct hot *h, uint8_t kind)
{
    if (h->count == h->capacity)
        return false;
    struct pickle_object *object = pickle_arena_object(&m->document->arena);
    if (!object)
        return false;
    *object = (struct pickle_object){.kind = kind, .memo_id = PICKLE_NO_MEMO};
    h->stack[h->count++] = (struct pickle_value){.kind = kind, .as.object = object};
    return true;
}

/* A dict the consumer reads itself (struct pickle_consumer's
 * claim_dict): asked where the dict would go above a list under the
 * innermost mark and its MEMOIZE needs no new chunk; the bytes it read,
 * 0 when it left the dict to the loop. Its memo slot is taken at once
 * (a fetch of it is refused, as of a dict a consumer took), and a chunk
 * that ends all taken is freed as memo_drop frees one. */
static inline size_t claim_fast(struct machine *m, struct hot *h)
{
    uint64_t id = m->memo_count;
    if (!m->consumer || !m->consumer->claim_dict || h->floor == 0 || h->count == h->capacity ||
        h->stack[h->floor - 1].kind != PICKLE_LIST || (id & (PICKLE_MEMO_CHUNK - 1)) == 0 ||
        id >= UINT32_MAX)
        return 0;
    size_t available = (size_t)(m->end - h->p);
    size_t used = m->consumer->claim_dict(m->consumer->context, h->stack[h->floor - 1].as.object,
                                          h->p, available, (struct pickle_memo *)m);
    if (used < 4 || used > available)
        return 0;
    size_t chunk = id >> PICKLE_MEMO_SHIFT;
    *pickle_memo_slot(m, id) = MEMO_RECYCLED;
    m->memo_count++;
    if (m->memo_live[chunk] == 0 && (chunk + 1) * PICKLE_MEMO_CHUNK <= m->memo_count) {
        free(m->memo_chunks[chunk]);
        m->memo_chunks[chunk] = NULL;
    }
    h->stack[h->count++] = (struct pickle_value){.kind = PICKLE_CLAIMED};
    return used;
}

uint64_t pickle_memo_generation(const struct pickle_memo *memo)
{
    return ((const struct machine *)memo)->memo_generation;
}

bool pickle_memo_get(struct pickle_memo *memo, uint64_t id, struct pickle_value *value)
{
    struct machine *m = (struct machine *)memo;
    if (id >= m->memo_count || !m->memo_chunks[id >> PICKLE_MEMO_SHIFT])
        return false;
    uint64_t slot = *pickle_memo_slot(m, id);
    if (slot == MEMO_RECYCLED)
        return false;
    if ((slot & MEMO_TAG) == MEMO_OBJECT)
        ((struct pickle_object *)(uintptr_t)slot)->shared = true;
    *value = pickle_memo_unpack(slot);
    return true;
}

/* SETITEMS: the pairs above the mark go into the dict below it. */
static inline bool set_items_fast(struct machine *m, struct hot *h)
{
    size_t base = h->floor, n = h->count - base;
    if (!m->mark_count || base == 0 || h->stack[base - 1].kind != PICKLE_DICT || n % 2)
        return false;
    if (n) {
        struct pickle_object *dict = h->stack[base - 1].as.object;
        if (dict->count + (uint64_t)n > UINT32_MAX ||
            !pickle_arena_items(&m->document->arena, dict, dict->count + n))
            return false;
        memcpy(dict->items + dict->count, h->stack + base, n * sizeof *h->stack);
        dict->count += (uint32_t)n;
    }
    h->count = base;
    m->mark_count--;
    h->floor = m->mark_count ? m->marks[m->mark_count - 1] : 0;
    return true;
}

/* The opcodes run in line, and the byte of each: everything else is
 * OP_STEP (pickle_step.c). */
enum fast_op {
    OP_STEP, OP_LONG_BINGET, OP_BINGET, OP_MEMOIZE, OP_BINPUT, OP_LONG_BINPUT, OP_MARK,
    OP_EMPTY_DICT, OP_EMPTY_LIST, OP_SETITEMS, OP_BININT1, OP_BININT2, OP_BININT, OP_LONG1,
    OP_SHORT_BINUNICODE, OP_BINUNICODE, OP_NONE, OP_NEWTRUE, OP_NEWFALSE, OP_FRAME, OP_COUNT
};

static const uint8_t fast_ops[256] = {
    ['j'] = OP_LONG_BINGET, ['h'] = OP_BINGET, [0x94] = OP_MEMOIZE, ['q'] = OP_BINPUT,
    ['r'] = OP_LONG_BINPUT, ['('] = OP_MARK, ['}'] = OP_EMPTY_DICT, [']'] = OP_EMPTY_LIST,
    ['u'] = OP_SETITEMS, ['K'] = OP_BININT1, ['M'] = OP_BININT2, ['J'] = OP_BININT,
    [0x8a] = OP_LONG1, [0x8c] = OP_SHORT_BINUNICODE, ['X'] = OP_BINUNICODE, ['N'] = OP_NONE,
    [0x88] = OP_NEWTRUE, [0x89] = OP_NEWFALSE, [0x95] = OP_FRAME,
};

/* Operands of up to this many bytes need no bounds check in line: the
 * loop runs in line only up to this far from the end of the file. */
#define SAFE_TAIL 16

#define PUSH(value) (h.stack[h.count++] = (value))
/* The next opcode: in line while it is SAFE_TAIL bytes from the end and
 * before the next progress report, else by the loop's tail. Each opcode
 * jumps to the next itself (a table of labels, GCC's and Clang's), so the
 * processor learns which opcode follows which. */
#define NEXT(length)                                                                   \
    do {                                                                               \
        h.p += (length);                                                               \
        if (h.p >= safe)                                                               \
            goto tail;                                                                 \
        goto *labels[fast_ops[*h.p]];                                                  \
    } while (0)
#define STEP_UNLESS(condition)                                                         \
    do {                                                                               \
        if (!(condition))                                                              \
            goto step;                                                                 \
    } while (0)

static bool run(struct machine *m)
{
    static const void *const labels[OP_COUNT] = {
        [OP_STEP] = &&step, [OP_LONG_BINGET] = &&long_binget, [OP_BINGET] = &&binget,
        [OP_MEMOIZE] = &&memoize, [OP_BINPUT] = &&binput, [OP_LONG_BINPUT] = &&long_binput,
        [OP_MARK] = &&mark, [OP_EMPTY_DICT] = &&empty_dict, [OP_EMPTY_LIST] = &&empty_list,
        [OP_SETITEMS] = &&setitems, [OP_BININT1] = &&binint1, [OP_BININT2] = &&binint2,
        [OP_BININT] = &&binint, [OP_LONG1] = &&long1,
        [OP_SHORT_BINUNICODE] = &&short_binunicode, [OP_BINUNICODE] = &&binunicode,
        [OP_NONE] = &&none, [OP_NEWTRUE] = &&newtrue, [OP_NEWFALSE] = &&newfalse,
        [OP_FRAME] = &&frame,
    };
    bool tracked = m->consumer && m->consumer->advance;
    size_t size = (size_t)(m->end - m->start);
    size_t next_advance = tracked ? ADVANCE_STEP : SIZE_MAX;
    const uint8_t *safe_end = m->start + (size > SAFE_TAIL ? size - SAFE_TAIL : 0);
    const uint8_t *safe = safe_end;
    struct hot h;
    hot_load(&h, m);
    goto limits;

long_binget:
    STEP_UNLESS(memo_get_fast(m, &h, load32(h.p + 1)));
    NEXT(5);
binget:
    STEP_UNLESS(memo_get_fast(m, &h, h.p[1]));
    NEXT(2);
memoize:
    STEP_UNLESS(memo_put_fast(m, &h, m->memo_count));
    NEXT(1);
binput:
    STEP_UNLESS(memo_put_fast(m, &h, h.p[1]));
    NEXT(2);
long_binput:
    STEP_UNLESS(memo_put_fast(m, &h, load32(h.p + 1)));
    NEXT(5);
mark:
    STEP_UNLESS(m->mark_count < m->mark_capacity);
    m->marks[m->mark_count++] = h.count;
    h.floor = h.count;
    NEXT(1);
empty_dict: {
    size_t claimed = claim_fast(m, &h);
    if (claimed)
        NEXT(claimed);
    STEP_UNLESS(push_container_fast(m, &h, PICKLE_DICT));
    NEXT(1);
}
empty_list:
    STEP_UNLESS(push_container_fast(m, &h, PICKLE_LIST));
    NEXT(1);
setitems:
    STEP_UNLESS(set_items_fast(m, &h));
    NEXT(1);
binint1:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_INT, .as.integer = h.p[1]}));
    NEXT(2);
binint2:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_INT, .as.integer = load16(h.p + 1)}));
    NEXT(3);
binint:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_INT, .as.integer = (int32_t)load32(h.p + 1)}));
    NEXT(5);
long1: { /* of up to 8 bytes: inside the safe distance */
    unsigned n = h.p[1];
    STEP_UNLESS(n <= 8 && h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_INT,
                                .as.integer = n ? long1_value(h.p + 2, n) : 0}));
    NEXT(2 + n);
}
short_binunicode: {
    size_t n = h.p[1];
    STEP_UNLESS((size_t)(m->end - h.p) - 2 >= n && h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_STR, .length = (uint32_t)n,
                                .as.string = h.p + 2}));
    NEXT(2 + n);
}
binunicode: {
    size_t n = load32(h.p + 1);
    STEP_UNLESS((size_t)(m->end - h.p) - 5 >= n && h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_STR, .length = (uint32_t)n,
                                .as.string = h.p + 5}));
    NEXT(5 + n);
}
none:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_NONE}));
    NEXT(1);
newtrue:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = true}));
    NEXT(1);
newfalse:
    STEP_UNLESS(h.count < h.capacity);
    PUSH(((struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = false}));
    NEXT(1);
frame: /* only a hint */
    NEXT(9);

step: {
    /* pickle_step runs it again from its first byte, with every check. */
    m->opcode = h.p;
    m->p = h.p + 1;
    m->stack_count = h.count;
    uint8_t opcode = *h.p;
    if (opcode == '.')
        return pickle_step_stop(m);
    if (!pickle_step(m, opcode))
        return false;
    hot_load(&h, m);
    NEXT(0);
}
tail:
    if (h.p >= m->end) {
        m->stack_count = h.count;
        return pickle_step_cut(m);
    }
    if ((size_t)(h.p - m->start) >= next_advance) {
        m->consumer->advance(m->consumer->context, (size_t)(h.p - m->start));
        next_advance += ADVANCE_STEP;
    limits:
        safe = next_advance < (size_t)(safe_end - m->start) ? m->start + next_advance : safe_end;
        NEXT(0);
    }
    goto step; /* within SAFE_TAIL bytes of the end: every opcode checked */
}

enum pickle_status pickle_decode(const uint8_t *bytes, size_t size,
                                 const struct pickle_consumer *consumer,
                                 struct pickle_document **out, struct pickle_error *error)
{
    *out = NULL;
    *error = (struct pickle_error){0};
    struct pickle_document *document = calloc(1, sizeof *document);
    if (!document) {
        error->status = PICKLE_NO_MEMORY;
        snprintf(error->message, sizeof error->message, "out of memory");
        return PICKLE_NO_MEMORY;
    }
    struct machine m = {
        .start = bytes, .p = bytes, .end = bytes + size, .opcode = bytes,
        .document = document, .consumer = consumer, .error = error,
    };
    bool ok = run(&m);
    free(m.stack);
    free(m.marks);
    pickle_memo_free(&m);
    if (!ok) {
        pickle_document_free(document);
        return error->status;
    }
    *out = document;
    return PICKLE_OK;
}

void pickle_document_free(struct pickle_document *document)
{
    if (!document)
        return;
    pickle_arena_free(&document->arena);
    free(document);
}

struct pickle_value pickle_document_root(const struct pickle_document *document)
{
    return document->root;
}

int pickle_document_protocol(const struct pickle_document *document)
{
    return document->protocol;
}
