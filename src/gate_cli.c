#include "config.h"

#include "src/gate_cli.h"

#include <math.h>

#include "model/format.h"
#include "model/query/gate.h"
#include "model/message_text.h"
#include "src/cli_output.h"

/* "PATH: ID: " in front of a line about an allocator (the id raw). */
static void line_start(struct message_text *line, char *buffer, size_t size,
                       const char *path, const struct profile *profile,
                       const struct allocator *allocator)
{
    message_text_start(line, buffer, size);
    message_text_append_format(line, "%s: ", path);
    message_text_append_bytes(line, profile_string(profile, allocator->id));
    message_text_append_text(line, ": ");
}

bool gate_cli_over(const struct gate_options *gates, const struct profile *profile)
{
    if (!gates->fail_over)
        return false;
    bool crossed = false;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        const struct allocator *allocator = &profile->allocators[i];
        int64_t limit;
        enum gate_result result = gate_over(allocator, &gates->over, &limit);
        if (result == GATE_PASSES)
            continue;
        char buffer[PRINT_LINE_SIZE], peak[FORMAT_BYTES_SIZE], bound[FORMAT_BYTES_SIZE];
        struct message_text line;
        line_start(&line, buffer, sizeof buffer, profile->path, profile, allocator);
        int64_t bytes = allocator->summary.peak_bytes;
        format_bytes(bytes, peak, sizeof peak);
        if (result == GATE_UNKNOWN) {
            message_text_append_format(&line, "warning: --fail-over %s not checked: the "
                                              "capacity is unknown",
                                       gates->over_text);
        } else if (gates->over.percent) {
            char capacity[FORMAT_BYTES_SIZE];
            format_bytes(allocator->summary.capacity_bytes, capacity, sizeof capacity);
            message_text_append_format(
                &line, "peak %s is %.2f%% of the capacity %s, over --fail-over %s (%s)", peak,
                (double)bytes * 100.0 / (double)allocator->summary.capacity_bytes, capacity,
                gates->over_text, format_bytes(limit, bound, sizeof bound));
            crossed = true;
        } else {
            message_text_append_format(&line,
                                       "peak %s (%lld bytes) is over --fail-over %s (%lld bytes)",
                                       peak, (long long)bytes, gates->over_text,
                                       (long long)limit);
            crossed = true;
        }
        print_error_line(message_text_get(&line));
    }
    return crossed;
}

bool gate_cli_growth(const struct gate_options *gates, const struct profile *base,
                     const struct profile_comparison *pairs)
{
    if (!gates->fail_growth)
        return false;
    bool crossed = false;
    for (size_t i = 0; i < pairs->count; i++) {
        const struct allocator_pair *pair = &pairs->pairs[i];
        double growth;
        if (!pair->base || !pair->new ||
            gate_growth(pair->base, pair->new, gates->growth_percent, &growth) != GATE_CROSSED)
            continue;
        char buffer[PRINT_LINE_SIZE], before[FORMAT_BYTES_SIZE], after[FORMAT_BYTES_SIZE];
        char grew[48];
        struct message_text line;
        message_text_start(&line, buffer, sizeof buffer);
        message_text_append_bytes(&line, profile_string(base, pair->base->id));
        if (isinf(growth))
            snprintf(grew, sizeof grew, "from nothing");
        else
            snprintf(grew, sizeof grew, "%.2f%%", growth);
        message_text_append_format(&line, ": peak grew %s (%s to %s), over --fail-growth %s",
                                   grew,
                                   format_bytes(pair->base->summary.peak_bytes, before,
                                                sizeof before),
                                   format_bytes(pair->new->summary.peak_bytes, after,
                                                sizeof after),
                                   gates->growth_text);
        print_error_line(message_text_get(&line));
        crossed = true;
    }
    return crossed;
}
