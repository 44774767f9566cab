/* load_xspace_attribution: names a memory event that has no op (JAX's
 * runtime writes none) after what encloses it on its thread (issue 22).
 *
 * The rules, derived from the real captures in data/real/ (jax 0.11.2,
 * PJRT's GPU client; every memory event of GPU_0_bfc sits in a chain
 * such as `PjitFunction(_step) > ... > CommonPjRtLoadedExecutable::Execute
 * (jit__step) > ... > [0] PjRtStreamExecutorRawLoadedExecutable::Execute >
 * Build buffer allocations`):
 *   - the op is the XLA executable's name, the text in parentheses of the
 *     innermost enclosing `...LoadedExecutable::Execute (NAME)` event
 *     (`jit__step`); without one, the jitted function of the innermost
 *     `PjitFunction(NAME)` (`NAME`); without either, the row says so:
 *     `outside any jitted function` (in the captures: the pinned host
 *     allocator's 256 B buffers on pjrt_async_work_runner threads);
 *   - the region is the buffer's role, from the innermost enclosing
 *     runtime event: `Build buffer allocations` makes the execution's
 *     buffers, a temporary or an output: a buffer freed while an
 *     execution encloses the free is `temp` (XLA frees its temporaries
 *     when the execution ends), any other (freed later by Python's
 *     garbage collection, or never) is `output`;
 *     `AllocateOutputBuffersWithInputReuse` and `CreateOutputs` make
 *     `output`; `Wait for donation holds` marks `donation`; an event whose
 *     name holds `Transfer`, `BufferFromPyval` or `device_put` makes
 *     `argument transfer`; inside an execution but none of these,
 *     `execution`;
 *   - the context is the whole chain, outermost first, " > " between.
 * An event that has an op (TensorFlow's tf_op) keeps XProf's reading.
 *
 * Owns: the interned words of those rules (in the loader). Called by the
 * host plane's walk (load_xspace_events.c) for each memory event without
 * an op, and by the table's finish (load_xspace_profile.c) to settle
 * temp or output (the per-pair part, xspace_attribute_settle, is inline in
 * xspace_internal.h: the matching asks it of every pair). Must not:
 * change an event that has an op. */
#include "config.h"

#include <string.h>

#include "model/formats/xspace/xspace_internal.h"

static bool span_prefix(const struct wire *wire, struct xspace_span span, const char *prefix,
                        struct text *rest)
{
    size_t length = strlen(prefix);
    const char *bytes = (const char *)wire->bytes + span.start;
    size_t size = span.end - span.start;
    if (size < length || memcmp(bytes, prefix, length) != 0)
        return false;
    *rest = text_make(bytes + length, size - length);
    return true;
}

static bool span_contains(const struct wire *wire, struct xspace_span span, const char *needle)
{
    size_t length = strlen(needle);
    const char *bytes = (const char *)wire->bytes + span.start;
    size_t size = span.end - span.start;
    for (size_t i = 0; i + length <= size; i++)
        if (memcmp(bytes + i, needle, length) == 0)
            return true;
    return false;
}

/* NAME of `...(NAME)` : the text up to the last ')'. */
static struct text in_parentheses(struct text rest)
{
    while (rest.length > 0 && rest.bytes[rest.length - 1] != ')')
        rest.length--;
    if (rest.length > 0)
        rest.length--;
    return rest;
}

/* The executable's name of one event, if it is an execution. */
static bool execution_name(const struct wire *wire, struct xspace_span name, struct text *out)
{
    if (!span_contains(wire, name, "LoadedExecutable::Execute ("))
        return false;
    const char *bytes = (const char *)wire->bytes + name.start;
    size_t size = name.end - name.start;
    for (size_t i = 0; i < size; i++)
        if (bytes[i] == '(') {
            *out = in_parentheses(text_make(bytes + i + 1, size - i - 1));
            return out->length > 0;
        }
    return false;
}

enum xspace_role {
    ROLE_NONE,
    ROLE_BUFFER, /* temp or output, settled when it is freed */
    ROLE_OUTPUT,
    ROLE_DONATION,
    ROLE_TRANSFER,
};

static enum xspace_role role_of(const struct wire *wire, struct xspace_span name)
{
    struct text rest;
    if (span_prefix(wire, name, "Build buffer allocations", &rest))
        return ROLE_BUFFER;
    if (span_contains(wire, name, "AllocateOutputBuffersWithInputReuse") ||
        span_contains(wire, name, "CreateOutputs"))
        return ROLE_OUTPUT;
    if (span_contains(wire, name, "Wait for donation holds"))
        return ROLE_DONATION;
    if (span_contains(wire, name, "Transfer") || span_contains(wire, name, "BufferFromPyval") ||
        span_contains(wire, name, "device_put"))
        return ROLE_TRANSFER;
    return ROLE_NONE;
}

static uint32_t intern(struct xspace_loader *loader, uint32_t *id, const char *word)
{
    if (*id == 0)
        *id = string_table_intern(loader->strings, word, strlen(word)) + 1;
    return *id - 1;
}

/* The context: every enclosing event's name, outermost first. */
static uint32_t chain_of(struct xspace_loader *loader, const struct xspace_metadata *const *names,
                         size_t count)
{
    char buffer[1024];
    size_t length = 0;
    for (size_t i = 0; i < count; i++) {
        size_t size = names[i]->name.end - names[i]->name.start;
        if (length + size + 3 >= sizeof buffer)
            break;
        if (i > 0) {
            memcpy(buffer + length, " > ", 3);
            length += 3;
        }
        memcpy(buffer + length, loader->wire.bytes + names[i]->name.start, size);
        length += size;
    }
    return string_table_intern(loader->strings, buffer, length);
}

bool xspace_attribute(struct xspace_loader *loader, const uint64_t *keys, size_t count,
                      struct xspace_names *out)
{
    struct xspace_attribution_ids *ids = &loader->attribution;
    const struct xspace_metadata *names[64];
    size_t found = 0;
    for (size_t i = 0; i < count && found < 64; i++) {
        const struct xspace_metadata *entry =
            xspace_metadata_lookup(&loader->plane->events, keys[i]);
        if (entry)
            names[found++] = entry;
    }
    struct text executable = {"", 0}, function = {"", 0};
    enum xspace_role role = ROLE_NONE;
    bool in_execution = false;
    for (size_t i = found; i-- > 0;) {
        struct text rest;
        if (!in_execution && execution_name(&loader->wire, names[i]->name, &executable))
            in_execution = true;
        if (function.length == 0 && span_prefix(&loader->wire, names[i]->name, "PjitFunction(", &rest))
            function = in_parentheses(rest);
        if (role == ROLE_NONE)
            role = role_of(&loader->wire, names[i]->name);
    }
    struct text op = executable.length ? executable : function;
    out->op = op.length ? string_table_intern(loader->strings, op.bytes, op.length)
                        : intern(loader, &ids->outside, "outside any jitted function");
    out->free_region = in_execution ? intern(loader, &ids->freed_inside, "freed in execution")
                                    : STRING_ID_EMPTY;
    out->allocation_region = role == ROLE_BUFFER     ? intern(loader, &ids->buffer, "temp or output")
                             : role == ROLE_OUTPUT   ? intern(loader, &ids->output, "output")
                             : role == ROLE_DONATION ? intern(loader, &ids->donation, "donation")
                             : role == ROLE_TRANSFER
                                 ? intern(loader, &ids->transfer, "argument transfer")
                             : in_execution ? intern(loader, &ids->execution, "execution")
                                            : STRING_ID_EMPTY;
    out->context = found ? chain_of(loader, names, found) : STRING_ID_EMPTY;
    return out->op != STRING_ID_NONE && out->allocation_region != STRING_ID_NONE &&
           out->free_region != STRING_ID_NONE && out->context != STRING_ID_NONE;
}

bool xspace_attribute_settle_ready(struct xspace_loader *loader)
{
    struct xspace_attribution_ids *ids = &loader->attribution;
    return ids->buffer == 0 || (intern(loader, &ids->temp, "temp") != STRING_ID_NONE &&
                                intern(loader, &ids->output, "output") != STRING_ID_NONE);
}

void xspace_attribute_unfreed(struct xspace_loader *loader, struct snapshot_columns *timeline,
                              const struct integer_map *open)
{
    struct xspace_attribution_ids *ids = &loader->attribution;
    if (ids->buffer == 0)
        return;
    size_t count = open ? open->capacity : timeline->count;
    for (size_t i = 0; i < count; i++) {
        if (open && !open->slots[i].used)
            continue;
        size_t at = open ? open->slots[i].value : i;
        if (timeline->region_type[at] == ids->buffer - 1)
            timeline->region_type[at] = intern(loader, &ids->output, "output");
    }
}
