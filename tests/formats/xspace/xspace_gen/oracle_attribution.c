/* oracle_attribution: memtop's naming of memory events without a tf_op
 * (issue 22; the rules are model/formats/xspace/load_xspace_attribution.c's
 * header), simulated from the generator's own events for the
 * expectations file. Written again from the rules, sharing no code with
 * memtop: a difference between the two fails test_load_xspace.
 *
 * Nesting: on each line, in file order, an event is enclosed by the open
 * events whose [begin, end] holds its own (the nesting stack). An
 * allocation is named after the innermost `...LoadedExecutable::Execute
 * (NAME)` (NAME), else `PjitFunction(NAME)` (NAME), else "outside any
 * jitted function"; its region is the innermost role event's: `Build
 * buffer allocations` "temp or output" (settled by its free: freed with
 * an execution open, "temp"; else, or never freed, "output"),
 * AllocateOutputBuffersWithInputReuse/CreateOutputs "output", `Wait for
 * donation holds` "donation", Transfer/BufferFromPyval/device_put
 * "argument transfer", else inside an execution "execution". */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/oracle.h"
#include "tests/formats/xspace/xspace_gen/strings.h"

static bool contains(uint32_t id, const char *needle)
{
    struct text text = string_text(id);
    size_t length = strlen(needle);
    for (size_t i = 0; i + length <= text.size; i++)
        if (memcmp(text.data + i, needle, length) == 0)
            return true;
    return false;
}

/* The text between the first '(' and the last ')' of `id`, interned; 0
 * when there is none or it is empty. */
static uint32_t parenthesised(uint32_t id)
{
    struct text text = string_text(id);
    const uint8_t *open = memchr(text.data, '(', text.size);
    if (open == NULL)
        return 0;
    size_t start = (size_t)(open - text.data) + 1, end = text.size;
    while (end > start && text.data[end - 1] != ')')
        end--;
    if (end <= start + 1)
        return 0;
    return string_intern(text.data + start, end - 1 - start);
}

static uint32_t role(uint32_t name)
{
    if (string_starts_with(name, "Build buffer allocations"))
        return string_c("temp or output");
    if (contains(name, "AllocateOutputBuffersWithInputReuse") || contains(name, "CreateOutputs"))
        return string_c("output");
    if (contains(name, "Wait for donation holds"))
        return string_c("donation");
    if (contains(name, "Transfer") || contains(name, "BufferFromPyval") ||
        contains(name, "device_put"))
        return string_c("argument transfer");
    return 0;
}

static bool is_async(const struct plane *plane, const struct host_event *event)
{
    bool async = false;
    for (uint32_t i = 0; i < event->stat_count; i++) {
        bool found;
        uint32_t name = oracle_stat_name(plane, &event->stats[i], &found);
        if (found && string_is(name, "is_async"))
            async = read_int(&event->stats[i]) != 0;
    }
    return async;
}

void oracle_attribute(const struct plane *plane, const struct host_event *events, uint64_t count,
                      const bool *unnamed, struct oracle_name *names)
{
    uint64_t *stack = calloc(count + 1, sizeof *stack);
    uint64_t depth = 0;
    for (uint64_t i = 0; i < count; i++) {
        const struct host_event *event = &events[i];
        if (i > 0 && events[i - 1].line != event->line)
            depth = 0;
        bool async = is_async(plane, event);
        while (!async && depth > 0 && !(events[stack[depth - 1]].begin_ps <= event->begin_ps &&
                              event->end_ps <= events[stack[depth - 1]].end_ps))
            depth--;
        names[i] = (struct oracle_name){0};
        if (unnamed[i]) {
            uint32_t executable = 0, function = 0, found_role = 0;
            /* An async event is nested in nothing. */
            for (uint64_t d = async ? 0 : depth; d-- > 0;) {
                uint32_t name = events[stack[d]].name;
                if (!executable && contains(name, "LoadedExecutable::Execute ("))
                    executable = parenthesised(name);
                if (!function && string_starts_with(name, "PjitFunction("))
                    function = parenthesised(name);
                if (!found_role)
                    found_role = role(name);
            }
            names[i].attributed = true;
            names[i].op = executable ? executable
                          : function ? function
                                     : string_c("outside any jitted function");
            names[i].in_execution = executable != 0;
            names[i].region = found_role ? found_role
                              : executable ? string_c("execution")
                                           : 0;
        }
        if (!async)
            stack[depth++] = i;
    }
    free(stack);
}
