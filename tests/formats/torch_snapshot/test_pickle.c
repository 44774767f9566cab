/* The pickle reader (model/decode/pickle.h) opcode by opcode: every
 * opcode of the subset it runs, the memo as shared objects, the consumer
 * taking items, and every refusal (classes, functions, buffers, broken
 * and cut pickles) with the opcode's offset. Pickles are written out by
 * hand here, byte by byte, as CPython writes them. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/decode/pickle.h"

#define BYTES(literal) (const uint8_t *)(literal), sizeof(literal) - 1

/* Each test runs twice: on the pickle as written, where every opcode is
 * within a few bytes of the end and goes through the checked path
 * (pickle_step.c), and with bytes after its STOP, so that the same
 * opcodes run in pickle.c's loop in line. Both must give the same. */
static size_t padding;
#define PAD_BYTES 64

static int pad_none(void **state)
{
    (void)state;
    padding = 0;
    return 0;
}

static int pad_after_stop(void **state)
{
    (void)state;
    padding = PAD_BYTES;
    return 0;
}

/* The pickle followed by `padding` bytes (STOPs, never read); four
 * buffers in turn, as a test holds at most two documents at once. */
static const uint8_t *padded(const uint8_t *bytes, size_t size, size_t *padded_size)
{
    static uint8_t buffers[4][1024];
    static unsigned next;
    uint8_t *buffer = buffers[next++ % 4];
    assert_true(size + PAD_BYTES <= sizeof buffers[0]);
    memcpy(buffer, bytes, size);
    memset(buffer + size, '.', padding);
    *padded_size = size + padding;
    return buffer;
}

static struct pickle_document *decode_ok(const uint8_t *bytes, size_t size)
{
    struct pickle_document *document;
    struct pickle_error error;
    bytes = padded(bytes, size, &size);
    enum pickle_status status = pickle_decode(bytes, size, NULL, &document, &error);
    if (status != PICKLE_OK)
        fail_msg("status %d at %llu: %s", status, (unsigned long long)error.offset,
                 error.message);
    return document;
}

static void expect_error(const uint8_t *bytes, size_t size, enum pickle_status status,
                         uint64_t offset, const char *text)
{
    struct pickle_document *document;
    struct pickle_error error;
    if (status != PICKLE_CUT) /* a cut pickle is cut at its end */
        bytes = padded(bytes, size, &size);
    assert_int_equal(pickle_decode(bytes, size, NULL, &document, &error), status);
    assert_null(document);
    assert_int_equal(error.status, status);
    assert_int_equal(error.offset, offset);
    if (!strstr(error.message, text))
        fail_msg("message \"%s\" lacks \"%s\"", error.message, text);
}

/* Protocol 4 with a FRAME: a dict of every scalar opcode. */
static void test_scalars(void **state)
{
    (void)state;
    static const char pickle[] =
        "\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00" /* PROTO 4, FRAME (a hint) */
        "}\x94(" /* EMPTY_DICT MEMOIZE MARK */
        "\x8c\x01" "a" "\x94" "K\xff"          /* 'a': 255 (BININT1) */
        "\x8c\x01" "b" "\x94" "M\x00\x01"      /* 'b': 256 (BININT2) */
        "\x8c\x01" "c" "\x94" "J\xff\xff\xff\xff" /* 'c': -1 (BININT) */
        "\x8c\x01" "d" "\x94" "\x8a\x06\x00\x00\x00\x00\x80\x7f" /* LONG1, 6 bytes */
        "\x8c\x01" "e" "\x94" "\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00" /* 2^64-1 */
        "\x8c\x01" "f" "\x94" "\x8a\x00"       /* LONG1 of no bytes: 0 */
        "\x8c\x01" "g" "\x94" "\x8b\x02\x00\x00\x00\x00\xff" /* LONG4: -256 */
        "\x8c\x01" "h" "\x94" "G\x3f\xf8\x00\x00\x00\x00\x00\x00" /* 1.5, big-endian */
        "\x8c\x01" "i" "\x94" "\x88"           /* True */
        "\x8c\x01" "j" "\x94" "\x89"           /* False */
        "\x8c\x01" "k" "\x94" "N"              /* None */
        "\x8c\x01" "l" "\x94" "X\x03\x00\x00\x00" "xyz" "\x94" /* BINUNICODE */
        "\x8c\x01" "m" "\x94" "\x8d\x02\x00\x00\x00\x00\x00\x00\x00" "hi" "\x94"
        "\x8c\x01" "n" "\x94" "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01" /* 2^64 */
        "\x8c\x01" "o" "\x94" "\x8a\x01\x80"   /* -128 */
        "u.";
    struct pickle_document *document = decode_ok(BYTES(pickle));
    struct pickle_value root = pickle_document_root(document);
    assert_int_equal(pickle_document_protocol(document), 4);
    int64_t value;
    uint64_t unsigned_value;
    assert_true(pickle_as_int64(pickle_dict_get(&root, "a"), &value) && value == 255);
    assert_true(pickle_as_int64(pickle_dict_get(&root, "b"), &value) && value == 256);
    assert_true(pickle_as_int64(pickle_dict_get(&root, "c"), &value) && value == -1);
    assert_true(pickle_as_int64(pickle_dict_get(&root, "d"), &value) &&
                value == 0x7f8000000000ll);
    assert_int_equal(pickle_dict_get(&root, "e")->kind, PICKLE_UINT);
    assert_true(pickle_as_uint64(pickle_dict_get(&root, "e"), &unsigned_value) &&
                unsigned_value == UINT64_MAX);
    assert_false(pickle_as_int64(pickle_dict_get(&root, "e"), &value));
    assert_true(pickle_as_int64(pickle_dict_get(&root, "f"), &value) && value == 0);
    assert_true(pickle_as_int64(pickle_dict_get(&root, "g"), &value) && value == -256);
    assert_true(pickle_dict_get(&root, "h")->kind == PICKLE_FLOAT &&
                pickle_dict_get(&root, "h")->as.real == 1.5);
    assert_true(pickle_dict_get(&root, "i")->kind == PICKLE_BOOL &&
                pickle_dict_get(&root, "i")->as.boolean);
    assert_true(pickle_dict_get(&root, "j")->kind == PICKLE_BOOL &&
                !pickle_dict_get(&root, "j")->as.boolean);
    assert_int_equal(pickle_dict_get(&root, "k")->kind, PICKLE_NONE);
    assert_true(pickle_is_string(pickle_dict_get(&root, "l"), "xyz"));
    assert_true(pickle_is_string(pickle_dict_get(&root, "m"), "hi"));
    assert_int_equal(pickle_dict_get(&root, "n")->kind, PICKLE_BIG_INT);
    assert_true(pickle_as_int64(pickle_dict_get(&root, "o"), &value) && value == -128);
    assert_null(pickle_dict_get(&root, "z"));
    pickle_document_free(document);
}

/* Containers: APPENDS, APPEND, SETITEM, TUPLE1-3, EMPTY_TUPLE, and the
 * mark-built LIST, TUPLE and DICT of TorchScript's pickler; POP,
 * POP_MARK and DUP. */
static void test_containers(void **state)
{
    (void)state;
    static const char pickle[] =
        "\x80\x02" "]q\x00("                  /* list, BINPUT 0, MARK */
        "K\x01" "K\x02" "\x86"                /* (1, 2) TUPLE2 */
        "K\x03" "\x85"                        /* (3,) */
        "K\x04K\x05K\x06" "\x87"              /* (4, 5, 6) */
        ")"                                   /* () */
        "(K\x07K\x08l"                        /* [7, 8] LIST */
        "(K\x09t"                             /* (9,) TUPLE */
        "(X\x01\x00\x00\x00kK\x0a" "d"        /* {'k': 10} DICT */
        "e"                                   /* APPENDS */
        "K\x0b" "a"                           /* APPEND 11 */
        "K\x63" "0"                           /* push 99, POP */
        "(K\x01K\x02" "1"                     /* MARK 1 2 POP_MARK */
        "2" "0"                               /* DUP, POP */
        ".";
    struct pickle_document *document = decode_ok(BYTES(pickle));
    struct pickle_value root = pickle_document_root(document);
    size_t count;
    const struct pickle_value *items = pickle_items(&root, &count);
    assert_int_equal(count, 8);
    int64_t value;
    size_t inner;
    const struct pickle_value *pair = pickle_items(&items[0], &inner);
    assert_int_equal(items[0].kind, PICKLE_TUPLE);
    assert_int_equal(inner, 2);
    assert_true(pickle_as_int64(&pair[1], &value) && value == 2);
    pickle_items(&items[1], &inner);
    assert_int_equal(inner, 1);
    pickle_items(&items[2], &inner);
    assert_int_equal(inner, 3);
    pickle_items(&items[3], &inner);
    assert_int_equal(inner, 0);
    assert_int_equal(items[4].kind, PICKLE_LIST);
    const struct pickle_value *list = pickle_items(&items[4], &inner);
    assert_true(inner == 2 && pickle_as_int64(&list[1], &value) && value == 8);
    assert_int_equal(items[5].kind, PICKLE_TUPLE);
    assert_true(pickle_as_int64(pickle_dict_get(&items[6], "k"), &value) && value == 10);
    assert_true(pickle_as_int64(&items[7], &value) && value == 11);
    pickle_document_free(document);
    /* MARK TUPLE on an empty stack: (), no pointer into a stack not yet made. */
    document = decode_ok(BYTES("(t."));
    root = pickle_document_root(document);
    assert_int_equal(root.kind, PICKLE_TUPLE);
    assert_int_equal(root.as.object->count, 0);
    pickle_document_free(document);
    /* An empty batch (MARK then SETITEMS/APPENDS at once) adds nothing. */
    static const char empty_batches[] = "\x80\x04}\x94(u]\x94(e\x86.";
    document = decode_ok(BYTES(empty_batches));
    root = pickle_document_root(document);
    items = pickle_items(&root, &count);
    assert_int_equal(count, 2);
    assert_int_equal(items[0].as.object->count, 0);
    pickle_document_free(document);
}

/* A dict written twice is one dict: the memo hands back the same object
 * (MEMOIZE, BINGET, LONG_BINGET; BINPUT and LONG_BINPUT in protocol 2). */
static void test_memo_shares(void **state)
{
    (void)state;
    static const char proto4[] = "\x80\x04" "](" "}\x94" "\x8c\x01x\x94K\x01s"
                                 "h\x00" "j\x00\x00\x00\x00" "e.";
    struct pickle_document *document = decode_ok(BYTES(proto4));
    struct pickle_value root = pickle_document_root(document);
    size_t count;
    const struct pickle_value *items = pickle_items(&root, &count);
    assert_int_equal(count, 3);
    assert_ptr_equal(items[0].as.object, items[1].as.object);
    assert_ptr_equal(items[0].as.object, items[2].as.object);
    assert_true(items[0].as.object->shared);
    pickle_document_free(document);

    static const char proto2[] = "\x80\x02" "]q\x00(" "]r\x01\x00\x00\x00" "h\x01" "j\x01\x00\x00\x00"
                                 "e.";
    document = decode_ok(BYTES(proto2));
    root = pickle_document_root(document);
    items = pickle_items(&root, &count);
    assert_int_equal(count, 3);
    assert_ptr_equal(items[0].as.object, items[2].as.object);
    pickle_document_free(document);
}

/* Values other than containers in the memo (Python's pickler memoizes
 * strings; a file may memoize anything): each GET gives the value again. */
static void test_memo_values(void **state)
{
    (void)state;
    static const char pickle[] = "\x80\x04" "]\x94(" "K\x05\x94" "h\x01" "\x8c\x01" "a\x94" "h\x02"
                                 "N\x94" "j\x03\x00\x00\x00" "\x8a\x05\x00\x00\x00\x00\x80\x94" "h\x04"
                                 "e.";
    struct pickle_document *document = decode_ok(BYTES(pickle));
    struct pickle_value root = pickle_document_root(document);
    size_t count;
    const struct pickle_value *items = pickle_items(&root, &count);
    assert_int_equal(count, 8);
    int64_t value;
    assert_true(pickle_as_int64(&items[1], &value) && value == 5);
    assert_true(pickle_is_string(&items[3], "a"));
    assert_ptr_equal(items[2].as.string, items[3].as.string);
    assert_int_equal(items[5].kind, PICKLE_NONE);
    assert_true(pickle_as_int64(&items[7], &value) && value == -0x8000000000ll);
    pickle_document_free(document);
}

/* The consumer takes every batch of dicts: the list counts them and holds
 * none; a dict no one fetched is recycled, and fetching it after is refused. */
static int take_dicts(void *context, struct pickle_object *list, const struct pickle_value *items,
                      size_t count, struct pickle_error *error)
{
    (void)list;
    (void)error;
    if (items[0].kind != PICKLE_DICT)
        return 0;
    *(size_t *)context += count;
    return 1;
}

static void test_consumer_takes(void **state)
{
    (void)state;
    static const char pickle[] = "\x80\x04" "]\x94(" "}\x94" "}\x94" "}\x94" "e.";
    size_t taken = 0;
    struct pickle_consumer consumer = {.context = &taken, .take_items = take_dicts};
    struct pickle_document *document;
    struct pickle_error error;
    size_t size;
    const uint8_t *bytes = padded(BYTES(pickle), &size);
    assert_int_equal(pickle_decode(bytes, size, &consumer, &document, &error), PICKLE_OK);
    assert_int_equal(taken, 3);
    struct pickle_value root = pickle_document_root(document);
    assert_true(root.as.object->taken);
    assert_int_equal(root.as.object->taken_count, 3);
    size_t count;
    assert_null(pickle_items(&root, &count));
    pickle_document_free(document);

    static const char refetch[] = "\x80\x04" "]\x94(" "}\x94" "}\x94" "e" "h\x01" ".";
    taken = 0;
    bytes = padded(BYTES(refetch), &size);
    assert_int_equal(pickle_decode(bytes, size, &consumer, &document, &error), PICKLE_CORRUPT);
    assert_int_equal(error.offset, 10);
    assert_non_null(strstr(error.message, "already read"));
}

/* A consumer that claims every empty dict ("}\x94(u") above a list and
 * takes every batch of claimed items or dicts. */
struct claims {
    size_t claimed, taken_claimed, taken_dicts;
    uint64_t generation; /* the memo's, at the last claim */
};

static size_t claim_empty(void *context, const struct pickle_object *list, const uint8_t *bytes,
                          size_t available, struct pickle_memo *memo)
{
    struct claims *claims = context;
    assert_int_equal(list->kind, PICKLE_LIST);
    if (available < 4 || memcmp(bytes, "}\x94(u", 4) != 0)
        return 0;
    claims->claimed++;
    claims->generation = pickle_memo_generation(memo);
    return 4;
}

static int take_claimed(void *context, struct pickle_object *list,
                        const struct pickle_value *items, size_t count,
                        struct pickle_error *error)
{
    (void)list;
    (void)error;
    struct claims *claims = context;
    for (size_t i = 0; i < count; i++) {
        if (items[i].kind == PICKLE_CLAIMED)
            claims->taken_claimed++;
        else if (items[i].kind == PICKLE_DICT)
            claims->taken_dicts++;
        else
            return 0;
    }
    return 1;
}

/* Dicts a consumer claims stand as PICKLE_CLAIMED items of their list,
 * each taken with the list's batch; a fetch of one after is refused as
 * of a taken dict; the memo's generation counts slots filled again.
 * Where the reader runs every opcode checked (no bytes after STOP), it
 * claims nothing and the consumer takes the dicts: the same result. */
static void test_consumer_claims(void **state)
{
    (void)state;
    static const char pickle[] = "\x80\x04" "]\x94(" "}\x94(u" "}\x94(u" "}\x94(u" "e.";
    struct claims claims = {0};
    struct pickle_consumer consumer = {
        .context = &claims, .take_items = take_claimed, .claim_dict = claim_empty};
    struct pickle_document *document;
    struct pickle_error error;
    size_t size;
    const uint8_t *bytes = padded(BYTES(pickle), &size);
    assert_int_equal(pickle_decode(bytes, size, &consumer, &document, &error), PICKLE_OK);
    assert_int_equal(claims.taken_claimed + claims.taken_dicts, 3);
    assert_int_equal(claims.taken_claimed, claims.claimed);
    if (padding)
        assert_int_equal(claims.claimed, 3);
    struct pickle_value root = pickle_document_root(document);
    assert_int_equal(root.as.object->taken_count, 3);
    pickle_document_free(document);

    static const char refetch[] = "\x80\x04" "]\x94(" "}\x94(u" "}\x94(u" "e" "h\x02" ".";
    claims = (struct claims){0};
    bytes = padded(BYTES(refetch), &size);
    assert_int_equal(pickle_decode(bytes, size, &consumer, &document, &error), PICKLE_CORRUPT);
    assert_int_equal(error.offset, 14);
    assert_non_null(strstr(error.message, "already read"));

    /* None into slot 0, then slot 0 again: the generation moves. */
    static const char refill[] = "\x80\x04" "N\x94" "0" "Nq\x00" "0" "]\x94(" "}\x94(u" "e.";
    claims = (struct claims){0};
    bytes = padded(BYTES(refill), &size);
    assert_int_equal(pickle_decode(bytes, size, &consumer, &document, &error), PICKLE_OK);
    assert_int_equal(claims.taken_claimed + claims.taken_dicts, 1);
    if (padding) {
        assert_int_equal(claims.claimed, 1);
        assert_int_equal(claims.generation, 1);
    }
    pickle_document_free(document);
}

/* Decodes `tail` after a list of `dicts` memoized dicts the consumer takes
 * (batches of 1000; `padding` STOPs after); the status, error in `error`. */
static enum pickle_status decode_after_taken(size_t dicts, const char *tail, size_t tail_size,
                                             struct pickle_error *error, size_t *tail_at)
{
    size_t size = 4 + dicts * 3 + (dicts / 1000 + 1) * 2 + tail_size + padding;
    uint8_t *bytes = malloc(size), *at = bytes;
    assert_non_null(bytes);
    memcpy(at, "\x80\x04]\x94", 4);
    at += 4;
    for (size_t done = 0; done < dicts; done += 1000) {
        *at++ = '(';
        for (size_t i = done; i < dicts && i < done + 1000; i++, at += 2)
            memcpy(at, "}\x94", 2);
        *at++ = 'e';
    }
    *tail_at = (size_t)(at - bytes);
    memcpy(at, tail, tail_size);
    at += tail_size;
    memset(at, '.', padding);
    at += padding;
    size_t taken = 0;
    struct pickle_consumer consumer = {.context = &taken, .take_items = take_dicts};
    struct pickle_document *document = NULL;
    enum pickle_status status =
        pickle_decode(bytes, (size_t)(at - bytes), &consumer, &document, error);
    assert_int_equal(taken, dicts);
    pickle_document_free(document);
    free(bytes);
    return status;
}

/* The memo drops the slots of taken dicts by chunks (a chunk whose slots
 * all hold taken dicts is freed): fetching one is refused as fetching a
 * taken dict is, with its offset, in a freed chunk or not; a slot of a
 * freed chunk cannot be filled again; the slots after are as before. */
static void test_memo_drops_taken(void **state)
{
    (void)state;
    enum { DICTS = 40000 }; /* slots 1..40000: two whole chunks and more */
    struct pickle_error error;
    size_t tail_at;
    static const char early[] = "h\x05.", middle[] = "j\x20\x4e\x00\x00.", /* 20000 */
                      last[] = "j\x40\x9c\x00\x00."; /* 40000, its chunk not freed */
    const char *tails[] = {early, middle, last};
    size_t sizes[] = {sizeof early - 1, sizeof middle - 1, sizeof last - 1};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(decode_after_taken(DICTS, tails[t], sizes[t], &error, &tail_at),
                         PICKLE_CORRUPT);
        assert_int_equal(error.offset, tail_at);
        if (!strstr(error.message, "names an item already read and dropped"))
            fail_msg("message \"%s\"", error.message);
    }
    static const char refill[] = "Nr\x20\x4e\x00\x00.";
    assert_int_equal(decode_after_taken(DICTS, refill, sizeof refill - 1, &error, &tail_at),
                     PICKLE_CORRUPT);
    assert_int_equal(error.offset, tail_at + 1);
    if (!strstr(error.message, "memo slot 20000 is filled again"))
        fail_msg("message \"%s\"", error.message);
    /* New slots after them, and the list's own slot 0, still work. */
    static const char after[] = "N\x94" "0j\x41\x9c\x00\x00" "0h\x00\x86.";
    assert_int_equal(decode_after_taken(DICTS, after, sizeof after - 1, &error, &tail_at),
                     PICKLE_OK);
}

/* Opcodes that need a class, a function or a buffer are refused by name. */
static void test_refuses_objects(void **state)
{
    (void)state;
    expect_error(BYTES("\x80\x02" "cos\nsystem\n"), PICKLE_OBJECTS, 2, "GLOBAL");
    expect_error(BYTES("\x80\x04\x8c\x02os\x8c\x06system\x93"), PICKLE_OBJECTS, 14,
                 "STACK_GLOBAL");
    expect_error(BYTES("\x80\x02)R"), PICKLE_OBJECTS, 3, "REDUCE");
    expect_error(BYTES("\x80\x02})b"), PICKLE_OBJECTS, 4, "BUILD");
    expect_error(BYTES("\x80\x05\x97"), PICKLE_OBJECTS, 2, "NEXT_BUFFER");
    expect_error(BYTES("\x80\x05\x98"), PICKLE_OBJECTS, 2, "READONLY_BUFFER");
    expect_error(BYTES("\x80\x02)\x81"), PICKLE_OBJECTS, 3, "NEWOBJ");
    expect_error(BYTES("\x80\x04))}\x92"), PICKLE_OBJECTS, 5, "NEWOBJ_EX");
    expect_error(BYTES("\x80\x02(io\nX\n"), PICKLE_OBJECTS, 3, "INST");
    expect_error(BYTES("\x80\x02(o"), PICKLE_OBJECTS, 3, "OBJ");
    expect_error(BYTES("\x80\x02\x82\x01"), PICKLE_OBJECTS, 2, "EXT1");
    expect_error(BYTES("\x80\x02Pid\n"), PICKLE_OBJECTS, 2, "PERSID");
    expect_error(BYTES("\x80\x03" "C\x01x"), PICKLE_OBJECTS, 2, "SHORT_BINBYTES");
}

static void test_refuses_broken(void **state)
{
    (void)state;
    expect_error(BYTES("\x80\x04\xff"), PICKLE_CORRUPT, 2, "no pickle opcode");
    expect_error(BYTES("\x80\x06."), PICKLE_CORRUPT, 0, "protocol 6");
    expect_error(BYTES("\x80\x01."), PICKLE_CORRUPT, 0, "protocol 1");
    expect_error(BYTES("\x80\x04h\x00."), PICKLE_CORRUPT, 2, "never filled");
    expect_error(BYTES("\x80\x02]q\x05."), PICKLE_CORRUPT, 3, "out of order");
    expect_error(BYTES("\x80\x04}(K\x01" "e."), PICKLE_CORRUPT, 6, "not a list");
    expect_error(BYTES("\x80\x04](K\x01" "u."), PICKLE_CORRUPT, 6, "not a dict");
    expect_error(BYTES("\x80\x04}(K\x01K\x02K\x03" "u."), PICKLE_CORRUPT, 10, "no value");
    expect_error(BYTES("\x80\x04."), PICKLE_CORRUPT, 2, "nothing on the stack");
    expect_error(BYTES("\x80\x04" "e."), PICKLE_CORRUPT, 2, "without a MARK");
    expect_error(BYTES("\x80\x04" "K\x01\x86."), PICKLE_CORRUPT, 4, "stack empty");
    expect_error(BYTES("\x80\x04" "(a."), PICKLE_CORRUPT, 3, "stack empty");
}

/* Each operand cut short is reported at its opcode; a pickle with no
 * STOP at its end. */
static void test_cut(void **state)
{
    (void)state;
    expect_error(BYTES("\x80"), PICKLE_CUT, 0, "PROTO");
    expect_error(BYTES("\x80\x04\x95\x01\x00"), PICKLE_CUT, 2, "FRAME needs 6 more bytes");
    expect_error(BYTES("\x80\x04J\x01\x02"), PICKLE_CUT, 2, "BININT");
    expect_error(BYTES("\x80\x04\x8a\x06\x01"), PICKLE_CUT, 2, "LONG1");
    expect_error(BYTES("\x80\x04\x8b\x10\x00\x00\x00"), PICKLE_CUT, 2, "LONG4");
    expect_error(BYTES("\x80\x04\x8c\x05" "ab"), PICKLE_CUT, 2, "SHORT_BINUNICODE");
    expect_error(BYTES("\x80\x04X\x05\x00"), PICKLE_CUT, 2, "BINUNICODE");
    expect_error(BYTES("\x80\x04G\x00"), PICKLE_CUT, 2, "BINFLOAT");
    expect_error(BYTES("\x80\x04j\x00"), PICKLE_CUT, 2, "LONG_BINGET");
    expect_error(BYTES("\x80\x04}\x94"), PICKLE_CUT, 4, "before its STOP");
}

static void test_opcode_names(void **state)
{
    (void)state;
    assert_string_equal(pickle_opcode_name('c'), "GLOBAL");
    assert_string_equal(pickle_opcode_name(0x95), "FRAME");
    assert_null(pickle_opcode_name(0xff));
}

int main(void)
{
#define BOTH(test) cmocka_unit_test_setup(test, pad_none), cmocka_unit_test_setup(test, pad_after_stop)
    const struct CMUnitTest tests[] = {
        BOTH(test_scalars),       BOTH(test_containers),      BOTH(test_memo_shares),
        BOTH(test_memo_values),   BOTH(test_consumer_takes),  BOTH(test_consumer_claims),
        BOTH(test_memo_drops_taken),  BOTH(test_refuses_objects),
        BOTH(test_refuses_broken), BOTH(test_cut),            BOTH(test_opcode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
