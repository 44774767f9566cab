/* fuzz_common: the checks every loader harness runs on what a load gives.
 *
 * A harness is more than "did it crash": a profile that loads must be one
 * the views can trust (sorted timelines, resolved rows, strings that
 * exist), the --summary reports of it must be safe for a terminal and
 * valid JSON, and a refused input must come with a one-line message that
 * is itself safe to print. A broken promise calls fuzz_fail(), which
 * aborts so that libFuzzer keeps the input as a crash.
 *
 * Static functions only: each harness is one translation unit built by
 * tests/fuzz/run.sh. */
#ifndef MEMTOP_FUZZ_COMMON_H
#define MEMTOP_FUZZ_COMMON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/input_format.h"
#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/stack_text.h"
#include "model/timeline.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "report/summary_report.h"

/* Says which promise broke, then aborts: libFuzzer saves the input. */
static void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "memtop fuzz: broken promise: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

static void fuzz_require(bool condition, const char *what)
{
    if (!condition)
        fuzz_fail(what, NULL);
}

/* Bytes a terminal may receive: printable UTF-8 and newline only. C0 and
 * C1 controls, DEL and invalid UTF-8 are what format_safe_text() exists
 * to keep out. */
static bool fuzz_text_is_terminal_safe(const char *text, size_t length, bool newlines)
{
    size_t i = 0;
    while (i < length) {
        if (text[i] == '\n' && newlines) {
            i++;
            continue;
        }
        if (text[i] == '\0')
            return false;
        uint32_t code_point;
        size_t step = format_utf8_decode(text + i, &code_point);
        if (step == 0 || i + step > length)
            return false;
        if (code_point < 0x20 || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0))
            return false;
        i += step;
    }
    return true;
}

/* Raw text (a message, a warning) shown as main and the viewer show it:
 * escaped once, one terminal-safe line. */
static void fuzz_check_shown_line(struct text text, const char *what)
{
    char shown[4 * 2048 + 1];
    if (text.length > 2048)
        text.length = 2048;
    size_t length = format_safe_bytes(text, 0, shown, sizeof shown);
    if (!fuzz_text_is_terminal_safe(shown, length, false))
        fuzz_fail(what, shown);
}

/* A refusal: a known status and one non-empty line, raw (the file's
 * bytes it quotes are kept as they are) and terminal-safe once shown. */
static void fuzz_check_refusal(enum load_status status, const struct load_error *error)
{
    fuzz_require(status == LOAD_BAD_INPUT || status == LOAD_NO_MEMORY,
                 "a failed load returns LOAD_BAD_INPUT or LOAD_NO_MEMORY");
    size_t length = strnlen(error->message, sizeof error->message);
    fuzz_require(length < sizeof error->message, "the error message is NUL-terminated");
    struct text message = load_error_message(error);
    fuzz_require(message.length > 0 && message.length < sizeof error->message,
                 "a failed load says why, within its buffer");
    fuzz_check_shown_line(message, "the error message, shown, is one terminal-safe line");
}

static void fuzz_check_columns(const struct profile *profile,
                               const struct snapshot_columns *timeline)
{
    size_t strings = string_table_count(profile->strings);
    for (size_t i = 0; i < timeline->count; i++) {
        if (i > 0)
            fuzz_require(snapshot_columns_time(timeline, i - 1) <=
                             snapshot_columns_time(timeline, i),
                         "a finished timeline is sorted by time");
        fuzz_require(snapshot_columns_op_name(timeline, i) < strings &&
                         snapshot_columns_region_type(timeline, i) < strings &&
                         snapshot_columns_data_type(timeline, i) < strings &&
                         snapshot_columns_tensor_shape(timeline, i) < strings,
                     "every string id of a snapshot names a string");
        (void)snapshot_columns_in_use(timeline, i);
    }
    if (timeline->count == 0)
        return;
    /* The searches the views make, at the ends and beyond them. */
    int64_t first = snapshot_columns_time(timeline, 0),
            last = snapshot_columns_time(timeline, timeline->count - 1);
    int64_t probes[] = {INT64_MIN, first, last, INT64_MAX, first / 2 + last / 2};
    for (size_t p = 0; p < sizeof probes / sizeof *probes; p++) {
        size_t nearest = timeline_nearest(timeline, probes[p]);
        fuzz_require(nearest < timeline->count, "timeline_nearest finds a snapshot");
        size_t from, to;
        timeline_range(timeline, INT64_MIN, probes[p], &from, &to);
        fuzz_require(from <= to && to <= timeline->count, "timeline_range stays inside");
        size_t peak = timeline_max_in_use(timeline, from, to);
        fuzz_require(from == to ? peak == SIZE_MAX : (peak >= from && peak < to),
                     "timeline_max_in_use stays inside its range");
    }
}

/* A stack id names a string, or a stack of frames whose frames are
 * the profile's (model/stack_text.h). */
static bool fuzz_stack_valid(const struct profile *profile, uint32_t stack)
{
    if (!stack_id_is_frames(stack))
        return stack < string_table_count(profile->strings);
    return (stack & ~STACK_ID_FRAMES) < profile->frame_stack_count;
}

/* The frames behind the stacks kept as frames: in range, strings named. */
static void fuzz_check_frames(const struct profile *profile)
{
    size_t strings = string_table_count(profile->strings);
    for (size_t i = 0; i < profile->stack_frame_count; i++)
        fuzz_require(profile->stack_frames[i].file < strings &&
                         profile->stack_frames[i].name < strings,
                     "a frame's file and name are strings");
    for (size_t i = 0; i < profile->stack_frame_ref_count; i++) {
        uint32_t ref = profile->stack_frame_refs[i];
        fuzz_require((ref & STACK_REF_FOLDED) ? ref != STACK_REF_FOLDED
                                               : ref < profile->stack_frame_count,
                     "a stack's line is one of the profile's frames or a run folded");
    }
    for (size_t i = 0; i < profile->frame_stack_count; i++) {
        const struct frame_stack *stack = &profile->frame_stacks[i];
        fuzz_require(stack->count > 0 && stack->first <= profile->stack_frame_ref_count &&
                         stack->count <= profile->stack_frame_ref_count - stack->first,
                     "a stack's frames lie in the profile's list");
        /* A frame is a line or folds into one: never an empty text. */
        struct stack_text drawn = {0};
        uint32_t id = stack_id_of_frames((uint32_t)i);
        fuzz_require(stack_text_draw(profile, id, &drawn).length > 0 &&
                         stack_text_compare(profile, id, id) == 0,
                     "a stack of frames draws as a text");
        stack_text_free(&drawn);
    }
    for (size_t i = 1; i < profile->site_count; i++)
        fuzz_require(fuzz_stack_valid(profile, profile->sites[i].stack),
                     "a site's stack names a string or a stack of frames");
}

static void fuzz_check_rows(const struct profile *profile, const struct allocator *allocator)
{
    size_t strings = string_table_count(profile->strings);
    for (size_t r = 0; r < allocator->row_count; r++) {
        const struct allocation_row *row = &allocator->rows[r];
        fuzz_require(row->origin == ROW_FROM_SNAPSHOT || row->origin == ROW_FROM_SPECIAL ||
                         row->origin == ROW_UNRESOLVED || row->origin == ROW_FROM_ENTRY,
                     "a row has a known origin");
        fuzz_require(row->op_name < strings && row->region_type < strings &&
                         row->data_type < strings && row->tensor_shape < strings &&
                         row->kind < strings && row->location < strings &&
                         row->location_file < strings && fuzz_stack_valid(profile, row->stack) &&
                         row->context < strings,
                     "every string id of a row names a string");
        fuzz_require(row->origin != ROW_FROM_ENTRY ||
                         (row->snapshot_index == -1 && row->special_index == -1),
                     "an entry's row points at no snapshot");
        fuzz_require(row->origin == ROW_FROM_SNAPSHOT || !row->has_time,
                     "only a row from a snapshot has a time");
    }
}

/* What every view may assume of a finished profile. */
static void fuzz_check_profile(const struct profile *profile)
{
    fuzz_require(profile->allocator_count > 0, "a loaded profile has an allocator");
    fuzz_check_frames(profile);
    size_t strings = string_table_count(profile->strings);
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        fuzz_require(allocator->id < strings, "an allocator id names a string");
        fuzz_require(allocator->timeline_sampled ==
                         (allocator->timeline_kind == TIMELINE_SAMPLED),
                     "timeline_sampled says what the timeline kind says");
        fuzz_check_columns(profile, &allocator->timeline);
        fuzz_check_rows(profile, allocator);
        struct text id = profile_string(profile, allocator->id);
        fuzz_require(profile_find_allocator(profile, id) == (long)a,
                     "profile_find_allocator finds every allocator by its bytes");
        /* --allocator takes the spelling memtop shows: it names an
         * allocator shown the same (invalid UTF-8 shows as U+FFFD, so two
         * ids may look alike; a NUL or a control never makes them). */
        char shown[4 * 256 + 1], named_shown[4 * 256 + 1];
        if (id.length <= 256) {
            format_safe_bytes(id, 0, shown, sizeof shown);
            long named = profile_find_allocator_named(profile, shown);
            fuzz_require(named >= 0 && (size_t)named < profile->allocator_count,
                         "--allocator finds an allocator by the spelling memtop shows");
            format_safe_bytes(profile_string(profile, profile->allocators[named].id), 0,
                              named_shown, sizeof named_shown);
            fuzz_require(strcmp(shown, named_shown) == 0,
                         "--allocator names an allocator shown as it was asked for");
        }
    }
    for (size_t w = 0; w < profile->warning_count; w++) {
        fuzz_require(profile->warnings[w] < strings, "a warning names a string");
        fuzz_check_shown_line(profile_string(profile, profile->warnings[w]),
                              "a warning, shown, is one terminal-safe line");
    }
    fuzz_require(profile->warning_count <= PROFILE_WARNINGS_MAX + 1, "warnings stay few");
    for (size_t m = 0; m < profile->hlo_module_count; m++)
        fuzz_require(profile->hlo_modules[m].name < strings &&
                         profile->hlo_modules[m].plane_name < strings,
                     "HLO module strings exist");
}

/* The --summary reports: text safe for a terminal, JSON that parses. */
static void fuzz_check_reports(const struct profile *profile)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out)
        return;
    summary_report_text(out, profile, "host\x1b[2J");
    fclose(out);
    if (!fuzz_text_is_terminal_safe(text, length, true))
        fuzz_fail("the --summary text is safe to print on a terminal", NULL);
    free(text);

    text = NULL;
    length = 0;
    out = open_memstream(&text, &length);
    if (!out)
        return;
    summary_report_json(out, profile, "host\x1b[2J");
    fclose(out);
    cJSON *parsed = cJSON_ParseWithLength(text, length);
    if (!parsed)
        fuzz_fail("the --summary --json output is valid JSON", text);
    cJSON_Delete(parsed);
    free(text);
}

/* A load's outcome, whatever it was: checked, then freed. */
static void fuzz_check_outcome(enum load_status status, struct profile *profile,
                               const struct load_error *error)
{
    if (status == LOAD_OK) {
        fuzz_require(profile != NULL, "a successful load gives a profile");
        fuzz_check_profile(profile);
        fuzz_check_reports(profile);
    } else {
        fuzz_require(profile == NULL, "a failed load gives no profile");
        fuzz_check_refusal(status, error);
    }
    profile_free(profile);
}

/* The whole path a file takes (detection, finish, "no allocators"), only
 * for small inputs, where it costs little next to a harness's own load. */
static void fuzz_check_whole_path(const uint8_t *data, size_t size, const char *name)
{
    if (size > 4096)
        return;
    struct load_error error = {0};
    struct profile *loaded = NULL;
    enum load_status status = profile_load_bytes(data, size, name, NULL, &loaded, &error);
    fuzz_check_outcome(status, loaded, &error);
}

/* `format`'s reader alone on the bytes, under `name`, as
 * profile_load_bytes() runs it: a refusal is checked here; *profile is
 * the finished profile (the caller checks and frees it), NULL after a
 * refusal. False when the builder could not start (memory): nothing was
 * read. */
static bool fuzz_read_with(const struct input_format *format, const char *name,
                           const uint8_t *data, size_t size, struct profile **profile,
                           enum load_status *status, struct load_error *error)
{
    *profile = NULL;
    struct profile_builder builder;
    if (!profile_builder_init(&builder))
        return false;
    if (!profile_builder_set_source(&builder, name, format, false, size)) {
        profile_builder_discard(&builder);
        return false;
    }
    struct load_input input = {name, data, size, NULL};
    *status = format->load(&input, &builder, error);
    if (*status != LOAD_OK) {
        profile_builder_discard(&builder);
        fuzz_check_refusal(*status, error);
        return true;
    }
    *profile = profile_builder_finish(&builder);
    fuzz_require(*profile != NULL, "the builder's finishing succeeds (memory is plenty)");
    return true;
}

/* What a MemoryProfile reader fills: the builder and the XProf draft on
 * it (model/formats/memory_profile/xprof_draft.h). */
struct fuzz_draft {
    struct profile_builder builder;
    struct xprof_draft draft;
};

static bool fuzz_draft_start(struct fuzz_draft *target, const char *path,
                             const struct input_format *format)
{
    if (!profile_builder_init(&target->builder))
        return false;
    xprof_draft_init(&target->draft, &target->builder);
    if (profile_builder_set_source(&target->builder, path, format, false, 0))
        return true;
    profile_builder_discard(&target->builder);
    return false;
}

static void fuzz_draft_free(struct fuzz_draft *target)
{
    xprof_draft_free(&target->draft);
    profile_builder_discard(&target->builder);
}

/* A reader's result, finished the way profile_load_bytes() does. */
static void fuzz_finish_and_check(enum load_status status, struct fuzz_draft *target,
                                  const struct load_error *error)
{
    if (status == LOAD_OK) {
        fuzz_require(xprof_draft_finish(&target->draft),
                     "XProf's finishing succeeds (memory is plenty)");
        fuzz_require(target->draft.allocator_count == 0 && target->draft.allocators == NULL,
                     "XProf's finishing frees the raw pieces");
        struct profile *profile = profile_builder_finish(&target->builder);
        fuzz_require(profile != NULL, "the builder's finishing succeeds (memory is plenty)");
        if (profile->allocator_count == 0) {
            profile_free(profile);
            return;
        }
        fuzz_check_outcome(LOAD_OK, profile, error);
        return;
    }
    fuzz_draft_free(target);
    fuzz_check_refusal(status, error);
}

#endif
