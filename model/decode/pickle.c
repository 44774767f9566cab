/* pickle: the reader's loop and its document (see pickle.h).
 *
 * The loop keeps the stack in locals and runs in line the opcodes a
 * snapshot is made of (the memo's gets and puts, MARK, EMPTY_DICT,
 * SETITEMS, the integers, strings and FRAME: nineteen of twenty opcodes
 * of a trace), each only when all of its checks pass at once; it hands
 * anything else (an opcode it does not run in line, a check that fails, a
 * stack or memo that must grow, APPENDS and the consumer) to
 * pickle_step.c, which runs that opcode again from its first byte with
 * every check. So what a file is refused for, the message and the offset,
 * are pickle_step.c's alone, and the two paths cannot disagree on them.
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

/* LONG1 of 1 to 8 bytes at `bytes` (file ends at `end`), two's complement. */
static inline int64_t long1_value(const uint8_t *bytes, const uint8_t *end, unsigned n)
{
    uint64_t raw;
    if (end - bytes >= 8) {
        raw = load64(bytes);
    } else {
        raw = 0;
        for (unsigned i = n; i-- > 0;)
            raw = raw << 8 | bytes[i];
    }
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
    if (h->count <= h->floor || id > m->memo_count ||
        (id == m->memo_count && m->memo_count == m->memo_capacity))
        return false;
    const struct pickle_value *top = &h->stack[h->count - 1];
    if (pickle_is_container(top)) {
        struct pickle_object *object = top->as.object;
        if (object->memo_id != PICKLE_NO_MEMO)
            object->shared = true; /* in two slots: never recycled */
        object->memo_id = (uint32_t)id;
    }
    if (id == m->memo_count)
        m->memo_count++;
    m->memo[id] = *top;
    return true;
}

/* Push memo[id], when it is there and the stack has room. */
static inline bool memo_get_fast(struct machine *m, struct hot *h, uint64_t id)
{
    if (id >= m->memo_count || h->count == h->capacity)
        return false;
    struct pickle_value value = m->memo[id];
    if (value.kind == PICKLE_RECYCLED)
        return false;
    if (pickle_is_container(&value))
        value.as.object->shared = true;
    h->stack[h->count++] = value;
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

#define PUSH(value) (h.stack[h.count++] = (value))

/* One opcode in line; false when pickle_step must run it. */
static inline bool step_fast(struct machine *m, struct hot *restrict hp, const uint8_t *end)
{
    struct hot h = *hp;
    const uint8_t *p = h.p;
    size_t left = (size_t)(end - p); /* >= 1: the opcode */
    bool room = h.count < h.capacity;
    switch (*p) {
    case 'j': /* LONG_BINGET */
        if (left < 5 || !memo_get_fast(m, &h, load32(p + 1)))
            return false;
        h.p = p + 5;
        break;
    case 'h': /* BINGET */
        if (left < 2 || !memo_get_fast(m, &h, p[1]))
            return false;
        h.p = p + 2;
        break;
    case 0x94: /* MEMOIZE */
        if (!memo_put_fast(m, &h, m->memo_count))
            return false;
        h.p = p + 1;
        break;
    case 'q': /* BINPUT */
        if (left < 2 || !memo_put_fast(m, &h, p[1]))
            return false;
        h.p = p + 2;
        break;
    case 'r': /* LONG_BINPUT */
        if (left < 5 || !memo_put_fast(m, &h, load32(p + 1)))
            return false;
        h.p = p + 5;
        break;
    case '(': /* MARK */
        if (m->mark_count == m->mark_capacity)
            return false;
        m->marks[m->mark_count++] = h.count;
        h.floor = h.count;
        h.p = p + 1;
        break;
    case '}': /* EMPTY_DICT */
        if (!push_container_fast(m, &h, PICKLE_DICT))
            return false;
        h.p = p + 1;
        break;
    case ']': /* EMPTY_LIST */
        if (!push_container_fast(m, &h, PICKLE_LIST))
            return false;
        h.p = p + 1;
        break;
    case 'u': /* SETITEMS */
        if (!set_items_fast(m, &h))
            return false;
        h.p = p + 1;
        break;
    case 'K': /* BININT1 */
        if (left < 2 || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_INT, .as.integer = p[1]}));
        h.p = p + 2;
        break;
    case 'M': /* BININT2 */
        if (left < 3 || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_INT, .as.integer = load16(p + 1)}));
        h.p = p + 3;
        break;
    case 'J': /* BININT */
        if (left < 5 || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_INT,
                                    .as.integer = (int32_t)load32(p + 1)}));
        h.p = p + 5;
        break;
    case 0x8a: { /* LONG1 of up to 8 bytes */
        unsigned n = left >= 2 ? p[1] : 9;
        if (n > 8 || left - 2 < n || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_INT,
                                    .as.integer = n ? long1_value(p + 2, end, n) : 0}));
        h.p = p + 2 + n;
        break;
    }
    case 0x8c: { /* SHORT_BINUNICODE */
        size_t n = left >= 2 ? p[1] : SIZE_MAX;
        if (n == SIZE_MAX || left - 2 < n || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_STR, .length = (uint32_t)n,
                                    .as.string = p + 2}));
        h.p = p + 2 + n;
        break;
    }
    case 'X': { /* BINUNICODE */
        size_t n = left >= 5 ? load32(p + 1) : SIZE_MAX;
        if (n == SIZE_MAX || left - 5 < n || !room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_STR, .length = (uint32_t)n,
                                    .as.string = p + 5}));
        h.p = p + 5 + n;
        break;
    }
    case 'N':
        if (!room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_NONE}));
        h.p = p + 1;
        break;
    case 0x88: /* NEWTRUE */
    case 0x89: /* NEWFALSE */
        if (!room)
            return false;
        PUSH(((struct pickle_value){.kind = PICKLE_BOOL, .as.boolean = *p == 0x88}));
        h.p = p + 1;
        break;
    case 0x95: /* FRAME: only a hint */
        if (left < 9)
            return false;
        h.p = p + 9;
        break;
    default:
        return false;
    }
    *hp = h;
    return true;
}

static bool run(struct machine *m)
{
    bool tracked = m->consumer && m->consumer->advance;
    size_t size = (size_t)(m->end - m->start);
    size_t next_advance = tracked ? ADVANCE_STEP : SIZE_MAX;
    struct hot h;
    hot_load(&h, m);
    for (;;) {
        const uint8_t *limit = m->start + (next_advance < size ? next_advance : size);
        while (h.p < limit) {
            if (step_fast(m, &h, m->end))
                continue;
            /* pickle_step runs it again from its first byte, every check. */
            m->opcode = h.p;
            m->p = h.p + 1;
            m->stack_count = h.count;
            uint8_t opcode = *h.p;
            if (opcode == '.')
                return pickle_step_stop(m);
            if (!pickle_step(m, opcode))
                return false;
            hot_load(&h, m);
        }
        if (h.p >= m->end) {
            m->stack_count = h.count;
            return pickle_step_cut(m);
        }
        m->consumer->advance(m->consumer->context, (size_t)(h.p - m->start));
        next_advance += ADVANCE_STEP;
    }
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
    free(m.memo);
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
