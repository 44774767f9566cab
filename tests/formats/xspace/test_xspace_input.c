/* The XSpace loader's reading rules (docs/formats/xspace.md), its HLO
 * modules, how its format is told apart, and every kind of bad input: one
 * clear message, with the byte offset where it applies. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "tests/test_support.h"
#include "tests/formats/xspace/xspace_builder.h"

static enum load_status load_named(const void *bytes, size_t size, const char *name,
                                   struct profile **profile, struct load_error *error)
{
    memset(error, 0, sizeof *error);
    return profile_load_bytes(bytes, size, name, NULL, profile, error);
}

static struct profile *load_built(struct xspace_builder *builder)
{
    xsb_end_plane(builder);
    struct profile *profile = NULL;
    struct load_error error;
    if (load_named(builder->space.data, builder->space.size, "built.xplane.pb", &profile,
                   &error) != LOAD_OK)
        fail_msg("%s", error.message);
    xsb_free(builder);
    return profile;
}

static const struct allocator *allocator_named(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    if (index < 0)
        fail_msg("no allocator \"%s\"", id);
    return &profile->allocators[index];
}

static void expect_text(const struct profile *profile, uint32_t id, const char *text)
{
    assert_string_equal(profile_text(profile, id), text);
}

/* ---- cost ---- */

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Issue 26.4: each allocator cost ~62 KB (the file's estimate of its
 * events reserved for every one), so 30,000 allocators of one event each
 * took 1.8 GB. Loaded in a child held to 300 MB of data (not under ASan,
 * whose shadow the limit would stop). */
static void test_many_allocators_cost_their_events(void **state)
{
    (void)state;
    enum { ALLOCATORS = 30000 };
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
#ifndef UNDER_ASAN
        struct rlimit limit = {(rlim_t)300 << 20, (rlim_t)300 << 20};
        if (setrlimit(RLIMIT_DATA, &limit) != 0)
            _exit(3);
#endif
        struct xspace_builder b;
        xsb_init(&b);
        xsb_plane(&b, "/host:CPU");
        xsb_line(&b, "main", 0);
        for (int i = 0; i < ALLOCATORS; i++) {
            char name[32];
            snprintf(name, sizeof name, "alloc%d", i);
            XSB_EVENT(&b, "MemoryAllocation", 100 + i, 0, XSB_STR("allocator_name", name),
                      XSB_INT("bytes_allocated", 4096), XSB_INT("allocation_bytes", 4096),
                      XSB_INT("requested_bytes", 4096), XSB_INT("addr", 4096 * (i + 1)));
        }
        xsb_end_plane(&b);
        struct profile *profile = NULL;
        struct load_error error;
        enum load_status status =
            load_named(b.space.data, b.space.size, "many.xplane.pb", &profile, &error);
        if (status != LOAD_OK)
            fprintf(stderr, "# %s\n", error.message);
        _exit(status == LOAD_OK && profile->allocator_count == ALLOCATORS ? 0 : 1);
    }
    int result;
    assert_int_equal(waitpid(child, &result, 0), child);
    assert_true(WIFEXITED(result));
    assert_int_equal(WEXITSTATUS(result), 0);
}

/* ---- reading rules ---- */

/* Integers read int64 only, the fragmentation double only; the memory id
 * is the last of allocator_name and index_on_host/device_ordinal. */
static void test_value_kinds_as_xprof_reads_them(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "MemoryAllocation", 100, 0, XSB_INT("index_on_host", 7),
              XSB_STR("allocator_name", "A"), XSB_UINT("requested_bytes", 512),
              XSB_INT("allocation_bytes", 1024), XSB_INT("fragmentation", 1),
              XSB_DOUBLE("bytes_reserved", 5.0), XSB_INT("bytes_allocated", 1024),
              XSB_INT("bytes_allocated", 2048), XSB_UINT("addr", UINT64_C(0xffff800000000000)));
    XSB_EVENT(&b, "MemoryAllocation", 200, 0, XSB_REF("allocator_name", "B"),
              XSB_INT("device_ordinal", 3), XSB_INT("bytes_allocated", 1),
              XSB_DOUBLE("fragmentation", 0.5));
    struct profile *profile = load_built(&b);
    const struct allocator *a = allocator_named(profile, "A");
    assert_int_equal(a->timeline.requested_bytes[0], 0); /* uint64: 0 for XProf */
    assert_int_equal(a->timeline.allocation_bytes[0], 1024);
    assert_true(a->timeline.fragmentation[0] == 0.0); /* int64 1: 0.0 */
    assert_int_equal(a->timeline.stack_bytes[0], 0);  /* a double: 0 */
    assert_int_equal(a->timeline.heap_bytes[0], 2048); /* the last wins */
    assert_int_equal(a->timeline.address[0], 0);       /* uint64 address: 0 */
    const struct allocator *three = allocator_named(profile, "3");
    assert_true(three->timeline.fragmentation[0] == 0.5);
    assert_int_equal(profile->allocator_count, 2);
    expect_text(profile, profile->allocators[0].id, "3"); /* sorted bytewise */
    profile_free(profile);
}

static void test_data_types_and_strings(void **state)
{
    (void)state;
    static const int64_t types[] = {0, 1, 14, 30, 31, 100, 105, 131, -3, INT64_C(4294967297)};
    static const char *const names[] = {"INVALID", "float", "bfloat16", "uint4",
                                        "unknown dtype enum (31)", "unknown dtype enum (100)",
                                        "int16_ref", "unknown dtype enum (31)_ref",
                                        "unknown dtype enum (-3)", "float"};
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        XSB_EVENT(&b, "MemoryAllocation", 100 + (int64_t)i, 0, XSB_REF("allocator_name", "A"),
                  XSB_INT("data_type", types[i]), XSB_STR("tf_op", "op\x1b[31m\xff"),
                  XSB_REF("region_type", "output"), XSB_INT("shape", 123));
    XSB_EVENT(&b, "MemoryAllocation", 200, 0, XSB_REF("allocator_name", "A"));
    struct profile *profile = load_built(&b);
    const struct allocator *a = allocator_named(profile, "A");
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        expect_text(profile, a->timeline.data_type[i], names[i]);
        expect_text(profile, a->timeline.op_name[i], "op\x1b[31m\xff"); /* bytes kept */
        expect_text(profile, a->timeline.region_type[i], "output");
        expect_text(profile, a->timeline.tensor_shape[i], ""); /* a number reads "" */
    }
    expect_text(profile, a->timeline.data_type[10], ""); /* no data_type: "", not INVALID */
    profile_free(profile);
}

/* A deallocation takes op, region, type and shape from the allocation at
 * its address; a num_occurrences event is at time 0; refs to missing
 * metadata read "". */
static void test_deallocations_and_odd_events(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "MemoryAllocation", 100, 0, XSB_REF("allocator_name", "A"),
              XSB_STR("tf_op", "matmul"), XSB_STR("shape", "[2,2]"), XSB_INT("addr", 64),
              XSB_INT("bytes_allocated", 16), XSB_INT("allocation_bytes", 16));
    XSB_EVENT(&b, "MemoryDeallocation", 300, 0, XSB_REF("allocator_name", "A"),
              XSB_INT("addr", 64), XSB_INT("allocation_bytes", 16));
    struct profile *profile = load_built(&b);
    const struct allocator *a = allocator_named(profile, "A");
    expect_text(profile, a->timeline.op_name[1], "matmul");
    expect_text(profile, a->timeline.tensor_shape[1], "[2,2]");
    profile_free(profile);

    /* num_occurrences (field 5) instead of offset_ps: time 0 */
    struct wire_bytes stat = {0}, event = {0}, line = {0}, plane = {0}, space = {0};
    struct wire_bytes entry = {0}, value = {0};
    wire_bytes_put_string_field(&plane, 2, "/host:CPU");
    wire_bytes_put_varint_field(&event, 1, 1);
    wire_bytes_put_varint_field(&event, 2, 5000);
    wire_bytes_put_varint_field(&event, 5, 3);
    wire_bytes_put_varint_field(&stat, 1, 2);
    wire_bytes_put_varint_field(&stat, 7, 99); /* a ref to no metadata: "" */
    wire_bytes_put_message_field(&event, 4, &stat);
    wire_bytes_put_message_field(&line, 4, &event);
    wire_bytes_put_message_field(&plane, 3, &line);
    wire_bytes_put_string_field(&value, 2, "MemoryAllocation");
    wire_bytes_put_varint_field(&entry, 1, 1);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&plane, 4, &entry);
    WIRE_BYTES_FREE_ALL(&entry, &value);
    wire_bytes_put_string_field(&value, 2, "allocator_name");
    wire_bytes_put_varint_field(&entry, 1, 2);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&plane, 5, &entry);
    wire_bytes_put_message_field(&space, 1, &plane);
    struct load_error error;
    assert_int_equal(load_named(space.data, space.size, "x.xplane.pb", &profile, &error), LOAD_OK);
    a = allocator_named(profile, "");
    assert_int_equal(snapshot_columns_time(&a->timeline, 0), 0);
    profile_free(profile);
    WIRE_BYTES_FREE_ALL(&stat, &event, &line, &plane, &space, &entry, &value);
}

/* A repeated map key keeps its last entry; lookups go by key, whatever
 * the inner id says. */
static void test_map_keys_rule(void **state)
{
    (void)state;
    struct wire_bytes space = {0}, plane = {0}, line = {0}, event = {0}, stat = {0};
    wire_bytes_put_string_field(&plane, 2, "/host:CPU");
    wire_bytes_put_varint_field(&event, 1, 5);
    wire_bytes_put_varint_field(&event, 2, 10);
    wire_bytes_put_varint_field(&stat, 1, 8);
    wire_bytes_put_string_field(&stat, 5, "B");
    wire_bytes_put_message_field(&event, 4, &stat);
    wire_bytes_put_message_field(&line, 4, &event);
    wire_bytes_put_message_field(&plane, 3, &line);
    static const struct { uint32_t field; uint64_t key, inner; const char *name; } entries[] = {
        {4, 5, 5, "Nothing"}, {4, 5, 77, "MemoryAllocation"}, /* the last one wins */
        {5, 8, 1000008, "allocator_name"},                    /* by key, not inner id */
    };
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
        struct wire_bytes entry = {0}, value = {0};
        wire_bytes_put_varint_field(&value, 1, entries[i].inner);
        wire_bytes_put_string_field(&value, 2, entries[i].name);
        wire_bytes_put_varint_field(&entry, 1, entries[i].key);
        wire_bytes_put_message_field(&entry, 2, &value);
        wire_bytes_put_message_field(&plane, entries[i].field, &entry);
        WIRE_BYTES_FREE_ALL(&entry, &value);
    }
    wire_bytes_put_message_field(&space, 1, &plane);
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(load_named(space.data, space.size, "x.xplane.pb", &profile, &error), LOAD_OK);
    assert_int_equal(allocator_named(profile, "B")->summary.allocations, 1);
    profile_free(profile);
    WIRE_BYTES_FREE_ALL(&space, &plane, &line, &event, &stat);
}

/* The table at the peak: the allocations live at the peak in its step,
 * the stack row and the unused-memory row, sorted and merged. */
static void test_table_at_the_peak(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    for (int i = 0; i < 3; i++)
        XSB_EVENT(&b, "MemoryAllocation", 100 + i, 0, XSB_REF("allocator_name", "A"),
                  XSB_INT("bytes_reserved", 4096), XSB_INT("bytes_allocated", 1000 + 100 * i),
                  XSB_INT("allocation_bytes", 100), XSB_INT("requested_bytes", 90),
                  XSB_INT("addr", 16 * i), XSB_STR("tf_op", "same"));
    struct profile *profile = load_built(&b);
    const struct allocator *a = allocator_named(profile, "A");
    assert_int_equal(a->summary.peak_bytes, 4096 + 1200);
    assert_int_equal(test_xprof_count(a), 3);
    expect_text(profile, test_xprof_rows(a)[0].op_name, "stack"); /* 4096 bytes: first */
    assert_int_equal(test_xprof_rows(a)[0].origin, ROW_FROM_SPECIAL);
    expect_text(profile, test_xprof_rows(a)[1].op_name, "unused preallocated device memory"); /* 900 */
    expect_text(profile, test_xprof_rows(a)[2].op_name, "same");
    assert_int_equal(test_xprof_rows(a)[2].occurrences, 3);
    assert_int_equal(test_xprof_rows(a)[2].origin, ROW_FROM_SNAPSHOT);
    /* The table at the peak is the live set (issue 22): here the same
     * rows, the older memory named in words rather than "unused". */
    assert_int_equal(a->rows_kind, ALLOCATOR_ROWS_LIVE);
    assert_int_equal(a->live_allocations, 3);
    assert_int_equal(a->row_count, 3);
    expect_text(profile, a->rows[0].op_name, "stack");
    expect_text(profile, a->rows[1].op_name, "allocated before the profile");
    assert_int_equal(a->rows[1].allocation_bytes, 900);
    expect_text(profile, a->rows[2].op_name, "same");
    assert_int_equal(a->rows[2].occurrences, 3);
    profile_free(profile);
}

/* ---- JAX: memory events without a tf_op named by what encloses them ---- */

/* The snapshot of allocator A at time_ps (the only one then). */
static size_t at_time(const struct allocator *a, int64_t time_ps)
{
    for (size_t i = 0; i < a->timeline.count; i++)
        if (snapshot_columns_time(&a->timeline, i) == time_ps)
            return i;
    fail_msg("no snapshot at %lld", (long long)time_ps);
    return 0;
}

static void expect_named(const struct profile *profile, const struct allocator *a,
                         int64_t time_ps, const char *op, const char *region)
{
    size_t i = at_time(a, time_ps);
    expect_text(profile, a->timeline.op_name[i], op);
    expect_text(profile, a->timeline.region_type[i], region);
}

/* Each rule of model/formats/xspace/load_xspace_attribution.c on a nest
 * of its own (times in ps on one line). */
static void test_attribution_rules(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "python3", 0);
    /* An execution's buffers: freed inside it (temp), after it, never. */
    xsb_span(&b, "PjitFunction(f)", 0, 1000);
    xsb_span(&b, "CommonPjRtLoadedExecutable::Execute (jit_f)", 10, 900);
    xsb_span(&b, "Build buffer allocations", 20, 80);
    xsb_memory(&b, 1, "A", 30, 100, 100, 0x100);
    xsb_memory(&b, 1, "A", 40, 300, 200, 0x200);
    xsb_memory(&b, 1, "A", 50, 600, 300, 0x300);
    xsb_memory(&b, 0, "A", 500, 500, 100, 0x100);
    xsb_memory(&b, 0, "A", 1500, 300, 200, 0x200);
    /* Outputs made by the output step of another execution. */
    xsb_span(&b, "CommonPjRtLoadedExecutable::Execute (jit_g)", 1900, 600);
    xsb_span(&b, "AllocateOutputBuffersWithInputReuse", 2000, 100);
    xsb_memory(&b, 1, "A", 2050, 700, 400, 0x400);
    /* A transfer outside any execution; a jitted function alone. */
    xsb_span(&b, "BufferFromPyval", 3000, 100);
    xsb_memory(&b, 1, "A", 3050, 1200, 500, 0x500);
    xsb_span(&b, "PjitFunction(h)", 4000, 100);
    xsb_memory(&b, 1, "A", 4050, 1800, 600, 0x600);
    /* An op the file names stays XProf's; nothing around: said in words. */
    xsb_span(&b, "CommonPjRtLoadedExecutable::Execute (jit_k)", 4900, 200);
    XSB_EVENT(&b, "MemoryAllocation", 5000, 0, XSB_REF("allocator_name", "A"),
              XSB_INT("bytes_allocated", 2500), XSB_INT("allocation_bytes", 700),
              XSB_INT("addr", 0x700), XSB_STR("tf_op", "conv"));
    xsb_memory(&b, 1, "A", 6000, 3300, 800, 0x800);
    struct profile *profile = load_built(&b);
    const struct allocator *a = allocator_named(profile, "A");
    expect_named(profile, a, 30, "jit_f", "temp");
    expect_named(profile, a, 40, "jit_f", "output");
    expect_named(profile, a, 50, "jit_f", "output");
    expect_named(profile, a, 2050, "jit_g", "output");
    expect_named(profile, a, 3050, "outside any jitted function", "argument transfer");
    expect_named(profile, a, 4050, "h", "");
    expect_named(profile, a, 5000, "conv", "");
    expect_named(profile, a, 6000, "outside any jitted function", "");
    /* A free takes its allocation's names (XProf's UpdateDeallocation). */
    expect_named(profile, a, 500, "jit_f", "temp");
    /* The context: the whole chain, outermost first. */
    assert_non_null(a->timeline.context);
    expect_text(profile, a->timeline.context[at_time(a, 30)],
                "PjitFunction(f) > CommonPjRtLoadedExecutable::Execute (jit_f) > "
                "Build buffer allocations");
    expect_text(profile, a->timeline.context[at_time(a, 6000)], "");
    profile_free(profile);
}

/* One execution whose buffer step allocates `bytes` at `address` for
 * allocator `allocator` at time `at` (the heap then `heap`). The builder
 * keeps the name's pointer: a literal. */
#define EXECUTE(name) "CommonPjRtLoadedExecutable::Execute (" name ")"
static void execution_allocates(struct xspace_builder *b, const char *execute,
                                const char *allocator, int64_t at, int64_t heap, int64_t bytes,
                                uint64_t address)
{
    xsb_span(b, execute, at - 20, 100);
    xsb_span(b, "Build buffer allocations", at - 10, 50);
    xsb_memory(b, 1, allocator, at, heap, bytes, address);
}

static bool has_row_named(const struct profile *profile, const struct allocator *a,
                          const char *op)
{
    for (size_t r = 0; r < a->row_count; r++)
        if (strcmp(profile_text(profile, a->rows[r].op_name), op) == 0)
            return true;
    return false;
}

/* An allocation at an address still allocated (no free between): XProf's
 * matching keeps the first for the frees, the live set the latest. The
 * table at the peak is the live set whether the second allocation comes
 * before the peak (A: the loader's matching pass cannot give the live set
 * there, so the replay makes it) or after (B: read off the matching as it
 * passes the peak); every buffer never freed is an output, the second
 * allocation at the address included. */
static void test_address_allocated_twice(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "python3", 0);
    execution_allocates(&b, EXECUTE("jit_first"), "A", 100, 100, 100, 0x100);
    execution_allocates(&b, EXECUTE("jit_second"), "A", 300, 200, 100, 0x100);
    execution_allocates(&b, EXECUTE("jit_third"), "A", 500, 300, 100, 0x200);
    xsb_memory(&b, 0, "A", 700, 200, 100, 0x200);
    execution_allocates(&b, EXECUTE("jit_b1"), "B", 1100, 100, 100, 0x100);
    execution_allocates(&b, EXECUTE("jit_b2"), "B", 1300, 300, 200, 0x300);
    xsb_memory(&b, 0, "B", 1400, 100, 200, 0x300);
    execution_allocates(&b, EXECUTE("jit_b3"), "B", 1600, 200, 100, 0x100);
    struct profile *profile = load_built(&b);

    const struct allocator *a = allocator_named(profile, "A");
    assert_int_equal(a->summary.peak_time_ps, 500);
    assert_int_equal(a->rows_kind, ALLOCATOR_ROWS_LIVE);
    assert_int_equal(a->live_allocations, 2);
    assert_true(has_row_named(profile, a, "jit_second"));
    assert_true(has_row_named(profile, a, "jit_third"));
    assert_false(has_row_named(profile, a, "jit_first"));
    expect_named(profile, a, 100, "jit_first", "output");
    expect_named(profile, a, 300, "jit_second", "output");

    const struct allocator *bb = allocator_named(profile, "B");
    assert_int_equal(bb->summary.peak_time_ps, 1300);
    assert_int_equal(bb->live_allocations, 2);
    assert_true(has_row_named(profile, bb, "jit_b1"));
    assert_true(has_row_named(profile, bb, "jit_b2"));
    assert_false(has_row_named(profile, bb, "jit_b3"));
    expect_named(profile, bb, 1300, "jit_b2", "output"); /* freed outside an execution */
    expect_named(profile, bb, 1400, "jit_b2", "output");
    expect_named(profile, bb, 1600, "jit_b3", "output");
    profile_free(profile);
}

/* XProf's modules from TPU planes' XLA Modules lines, numbered from 0;
 * memtop adds the GPU planes' after them. */
static void test_hlo_modules(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/device:GPU:0");
    xsb_line(&b, "XLA Modules", 0);
    xsb_span(&b, "gpu_module", 10, 5);
    xsb_plane(&b, "/device:TPU:1");
    xsb_line(&b, "XLA Ops", 0);
    xsb_span(&b, "fusion", 1, 1);
    xsb_line(&b, "XLA Modules", 0);
    xsb_span(&b, "jit_step(1)", 100, 50);
    xsb_span(&b, "jit_step(2)", 200, 50);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    xsb_memory(&b, 1, "A", 1, 1, 1, 1);
    struct profile *profile = load_built(&b);
    assert_int_equal(profile->hlo_module_count, 3);
    const struct hlo_module *m = profile->hlo_modules;
    assert_int_equal(m[0].id, 0);
    expect_text(profile, m[0].name, "jit_step(1)");
    expect_text(profile, m[0].plane_name, "TPU:1");
    assert_int_equal(m[0].start_time_ps, 100);
    assert_int_equal(m[0].end_time_ps, 150);
    assert_int_equal(m[1].id, 1);
    assert_int_equal(m[2].id, 2);
    expect_text(profile, m[2].name, "gpu_module");
    expect_text(profile, m[2].plane_name, "GPU:0");
    profile_free(profile);
}

/* ---- telling the format ---- */

static const char *format_of(const void *bytes, size_t size, const char *name)
{
    struct profile *profile = NULL;
    struct load_error error;
    if (load_named(bytes, size, name, &profile, &error) != LOAD_OK)
        return "refused";
    static char format[32];
    snprintf(format, sizeof format, "%s", profile_format_name(profile->format));
    profile_free(profile);
    return format;
}

static void test_told_apart_by_content(void **state)
{
    (void)state;
    size_t size;
    char *path = test_source_path("data/demo.v1.pb");
    uint8_t *memory_profile = test_read_file(path, &size);
    assert_non_null(memory_profile);
    assert_string_equal(format_of(memory_profile, size, "demo.xplane.pb"), "pb");
    free(memory_profile);
    free(path);
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    xsb_memory(&b, 1, "A", 1, 1, 1, 1);
    xsb_end_plane(&b);
    assert_string_equal(format_of(b.space.data, b.space.size, "capture.pb"), "xspace");
    xsb_free(&b);
}

/* ---- bad input ---- */

static void expect_refused(const void *bytes, size_t size, const char *name, const char *message,
                           bool offset)
{
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(load_named(bytes, size, name, &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    if (strstr(error.message, message) == NULL)
        fail_msg("\"%s\" does not say \"%s\"", error.message, message);
    assert_int_equal(error.has_offset, offset);
}

static void test_empty_and_riegeli(void **state)
{
    (void)state;
    expect_refused("", 0, "host.xplane.pb",
                   "empty: protobuf cannot hold a capture over 2 GiB; XProf writes an empty file "
                   "then", false);
    expect_refused("", 0, "host.json", "empty file", false);
    uint8_t riegeli[64] = {0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f};
    riegeli[16] = 0x40;
    riegeli[48] = 's';
    expect_refused(riegeli, sizeof riegeli, "anything", "Riegeli XSpace", false);
    expect_refused("\x12\x01x", 3, "host.xplane.riegeli", "not supported yet", false);
}

static void test_no_host_plane_or_no_memory_events(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/device:GPU:0");
    xsb_line(&b, "Stream #14(Compute)", 0);
    xsb_span(&b, "kernel", 0, 10);
    xsb_end_plane(&b);
    expect_refused(b.space.data, b.space.size, "x.xplane.pb",
                   "no host plane: this capture has no memory events", false);
    xsb_free(&b);
    xsb_init(&b);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    xsb_span(&b, "train", 0, 10);
    xsb_end_plane(&b);
    expect_refused(b.space.data, b.space.size, "x.xplane.pb",
                   "no memory events in the host plane: capture with host_tracer_level >= 2 "
                   "(jax.profiler.ProfileOptions(host_tracer_level=2), "
                   "tf.profiler.experimental.ProfilerOptions(host_tracer_level=2)); "
                   "JAX 0.4.29-0.4.31 on GPU records none (jax-ml/jax#22890)", false);
    xsb_free(&b);
}

/* Every prefix of a small capture: loaded when it ends between planes
 * with the host plane whole, else refused, with an offset for a cut inside
 * a message; never a crash; on two threads exactly as on one. */
static void test_every_prefix(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/device:TPU:0");
    xsb_line(&b, "XLA Modules", 0);
    xsb_span(&b, "module", 10, 5);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 1000);
    XSB_EVENT(&b, "train", 0, 1000, XSB_INT("_r", 1), XSB_STR("name", "x"));
    xsb_memory(&b, 1, "A", 10, 100, 100, 1);
    xsb_memory(&b, 0, "A", 20, 0, 100, 1);
    xsb_plane(&b, "Task Environment");
    xsb_end_plane(&b);
    size_t loaded = 0;
    for (size_t size = 0; size < b.space.size; size++) {
        uint8_t *copy = malloc(size + 1); /* exactly `size` readable bytes matter */
        memcpy(copy, b.space.data, size);
        struct profile *profiles[2] = {NULL, NULL};
        struct load_error errors[2];
        enum load_status statuses[2];
        for (int threads = 0; threads < 2; threads++) {
            load_xspace_set_pipeline_threshold(threads ? 1 : SIZE_MAX);
            statuses[threads] = load_named(copy, size, "cut.xplane.pb", &profiles[threads],
                                           &errors[threads]);
            load_xspace_set_pipeline_threshold(0);
        }
        assert_int_equal(statuses[0], statuses[1]);
        if (statuses[0] == LOAD_OK) {
            loaded++;
        } else {
            assert_int_equal(statuses[0], LOAD_BAD_INPUT);
            assert_string_equal(errors[0].message, errors[1].message);
            if (!errors[0].has_offset && !strstr(errors[0].message, "no host plane") &&
                !strstr(errors[0].message, "no memory events") &&
                !strstr(errors[0].message, "empty"))
                fail_msg("prefix %zu: \"%s\" has no offset", size, errors[0].message);
        }
        profile_free(profiles[0]);
        profile_free(profiles[1]);
        free(copy);
    }
    assert_int_equal(loaded, 1); /* cut right before Task Environment */
    xsb_free(&b);
}

static void test_wrong_wire_types(void **state)
{
    (void)state;
    /* planes as a varint */
    expect_refused("\x08\x01", 2, "x.xplane.pb", "offset 0: field 1 (planes) has wire type 0",
                   true);
    /* a plane whose lines field is a varint */
    expect_refused("\x0a\x0d\x12\x09/host:CPU\x18\x01", 15, "x.xplane.pb",
                   "offset 13: field 3 (lines) has wire type 0", true);
    /* an event's stats as a varint */
    expect_refused("\x0a\x10\x12\x09/host:CPU\x1a\x03\x22\x01\x20", 18, "x.xplane.pb",
                   "runs past the end", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_kinds_as_xprof_reads_them),
        cmocka_unit_test(test_attribution_rules),
        cmocka_unit_test(test_address_allocated_twice),
        cmocka_unit_test(test_data_types_and_strings),
        cmocka_unit_test(test_deallocations_and_odd_events),
        cmocka_unit_test(test_map_keys_rule),
        cmocka_unit_test(test_table_at_the_peak),
        cmocka_unit_test(test_hlo_modules),
        cmocka_unit_test(test_told_apart_by_content),
        cmocka_unit_test(test_empty_and_riegeli),
        cmocka_unit_test(test_no_host_plane_or_no_memory_events),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_wrong_wire_types),
        cmocka_unit_test(test_many_allocators_cost_their_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
