/* fuzz_oom_log: the OOM log reader (model/formats/oom_log/), fed any
 * bytes as a log. Besides fuzz_common.h's checks (a loaded profile the
 * views can trust, --summary text and JSON safe and valid, a refusal
 * with a safe one-line message): a loaded log is one allocator without a
 * timeline holding exactly one OOM, whose byte fields are -1 or not
 * negative, whose rows hold no negative size, and whose memory map's
 * blocks are not negative; the post-mortem card builds and prints. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include "model/input_format.h"
#include "model/query/oom.h"
#include "report/oom_card.h"

extern const struct input_format oom_log_format;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_oom_log(struct profile *profile)
{
    fuzz_require(profile->allocator_count == 1, "an OOM log is one allocator");
    const struct allocator *allocator = &profile->allocators[0];
    fuzz_require(allocator->timeline_kind == TIMELINE_NONE, "an OOM log has no timeline");
    fuzz_require(allocator->oom_count == 1, "an OOM log's allocator has one OOM");
    const struct oom_event *oom = &allocator->ooms[0];
    const int64_t fields[] = {oom->requested_bytes, oom->allocated_bytes, oom->reserved_bytes,
                              oom->device_free_bytes, oom->largest_free_bytes};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        fuzz_require(fields[i] >= -1, "an OOM's byte field is -1 or a size");
    for (size_t i = 0; i < allocator->row_count; i++)
        fuzz_require(allocator->rows[i].allocation_bytes >= 0 &&
                         allocator->rows[i].occurrences >= 0,
                     "an OOM log's row has no negative size or count");
    for (size_t i = 0; i < allocator->memory_map_count; i++)
        fuzz_require(allocator->memory_map[i].bytes >= 0, "a memory block is not negative");
    struct oom_card card;
    oom_card_build_for_report(&card, profile, 0, oom);
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out)
        return;
    oom_card_print(out, &card, "  ");
    fclose(out);
    fuzz_require(fuzz_text_is_terminal_safe(text, length, true),
                 "the post-mortem card is safe for a terminal");
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *profile;
    enum load_status status;
    struct load_error error = {0};
    if (!fuzz_read_with(&oom_log_format, "fuzz.log", data, size, &profile, &status, &error))
        return 0;
    if (profile) {
        check_oom_log(profile);
        fuzz_check_outcome(LOAD_OK, profile, &error);
    }
    fuzz_check_whole_path(data, size, "fuzz.log");
    return 0;
}
