/* The load_error helpers and the load tracker of model/load_internal.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/load_internal.h"

void load_error_set(struct load_error *error, const char *format, ...)
{
    if (!error)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error->message, sizeof error->message, format, arguments);
    va_end(arguments);
    error->message_length = strlen(error->message);
    error->has_offset = false;
}

void load_error_at(struct load_error *error, uint64_t offset, const char *format, ...)
{
    if (!error)
        return;
    int prefix = snprintf(error->message, sizeof error->message, "offset %llu: ",
                          (unsigned long long)offset);
    if (prefix > 0 && (size_t)prefix < sizeof error->message) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message + prefix, sizeof error->message - (size_t)prefix, format,
                  arguments);
        va_end(arguments);
    }
    error->message_length = strlen(error->message);
    error->offset = offset;
    error->has_offset = true;
}

struct text load_error_message(const struct load_error *error)
{
    /* A message written without the helpers has no length: up to its NUL. */
    if (error->message_length == 0 || error->message_length >= sizeof error->message)
        return text_make(error->message, strnlen(error->message, sizeof error->message));
    return text_make(error->message, error->message_length);
}

void load_tracker_report(struct load_tracker *tracker, size_t done)
{
    if (!tracker || done < tracker->next_report)
        return;
    tracker->next_report = done + LOAD_TRACKER_STEP;
    if (tracker->options && tracker->options->progress)
        tracker->options->progress(tracker->options->progress_context, done, tracker->total);
}

void load_tracker_release(struct load_tracker *tracker, size_t offset)
{
    if (!tracker || !tracker->release || offset < tracker->released_at)
        return;
    if (offset - tracker->released_at < LOAD_TRACKER_STEP)
        return;
    tracker->release(tracker->release_context, tracker->released_at, offset);
    tracker->released_at = offset;
}

void load_tracker_advance(struct load_tracker *tracker, size_t offset)
{
    load_tracker_report(tracker, offset);
    load_tracker_release(tracker, offset);
}

void load_tracker_finish(struct load_tracker *tracker)
{
    if (tracker && tracker->options && tracker->options->progress)
        tracker->options->progress(tracker->options->progress_context, tracker->total,
                                   tracker->total);
}
