/* oom_card: see oom_card.h. The numbers come from model/query/oom.h; here they
 * become words. */
#include "config.h"

#include "report/oom_card.h"

#include <string.h>

#include "model/query/live_set.h"

/* A fact with a size, or "unknown" where the file does not say (-1). */
static void card_fact(struct oom_card *card, const char *label, int64_t bytes, bool emphasis)
{
    if (card->fact_count >= OOM_CARD_FACTS)
        return;
    struct oom_card_fact *fact = &card->facts[card->fact_count++];
    fact->label = label;
    fact->emphasis = emphasis;
    if (bytes < 0)
        snprintf(fact->value, sizeof fact->value, "unknown");
    else
        format_bytes(bytes, fact->value, sizeof fact->value);
}

static void card_verdict(struct oom_card *card, const struct oom_event *oom,
                         const struct oom_account *account)
{
    char request[FORMAT_BYTES_SIZE], free_bytes[FORMAT_BYTES_SIZE], largest[FORMAT_BYTES_SIZE];
    format_bytes(oom->requested_bytes, request, sizeof request);
    format_bytes(account->free_bytes, free_bytes, sizeof free_bytes);
    format_bytes(oom->largest_free_bytes, largest, sizeof largest);
    switch (account->verdict) {
    case OOM_VERDICT_TOO_LARGE:
        snprintf(card->verdict, sizeof card->verdict,
                 "The request (%s) was larger than all free memory (%s): the job needs less "
                 "memory here, or a device with more.",
                 request, free_bytes);
        break;
    case OOM_VERDICT_FRAGMENTED:
        if (oom->largest_free_bytes >= 0)
            snprintf(card->verdict, sizeof card->verdict,
                     "Enough memory was free (%s in all), but no free block was large enough "
                     "for %s: the largest held %s. Fragmentation.",
                     free_bytes, request, largest);
        else
            snprintf(card->verdict, sizeof card->verdict,
                     "Enough memory was free (%s in all), but no free block was large enough "
                     "for %s: fragmentation.",
                     free_bytes, request);
        break;
    case OOM_VERDICT_LARGER_THAN_CACHED:
        snprintf(card->verdict, sizeof card->verdict,
                 "The request (%s) was larger than the memory reserved but free (%s), and the "
                 "device had no more to give (the file does not say how much it had).",
                 request, free_bytes);
        break;
    default:
        snprintf(card->verdict, sizeof card->verdict,
                 "The file does not say how much memory was free: the request (%s) may have "
                 "been larger than all of it, or fragmentation.",
                 oom->requested_bytes >= 0 ? request : "of unknown size");
        break;
    }
}

static void card_holders(struct oom_card *card, const struct profile *profile,
                         const struct allocation_row *rows, size_t row_count)
{
    struct oom_holder holders[OOM_CARD_HOLDERS];
    card->holder_count = oom_top_holders(rows, row_count, holders, OOM_CARD_HOLDERS);
    for (size_t i = 0; i < card->holder_count; i++) {
        struct oom_card_holder *holder = &card->holders[i];
        format_bytes(holders[i].bytes, holder->bytes, sizeof holder->bytes);
        holder->name_id = holders[i].name;
        struct text name = profile_string(profile, holders[i].name);
        if (name.length == 0)
            snprintf(holder->name, sizeof holder->name, "(no op)");
        else
            format_safe_bytes(name, 0, holder->name, sizeof holder->name);
        card->holders_by_location |= holders[i].is_location;
    }
}

static void card_notes_and_map(struct oom_card *card, const struct profile *profile,
                               const struct allocator *allocator)
{
    for (size_t i = 0; i < allocator->note_count && card->note_count < OOM_CARD_NOTES; i++) {
        format_safe_bytes(profile_string(profile, allocator->notes[i].label), 0,
                          card->notes[card->note_count].label, sizeof card->notes[0].label);
        format_safe_bytes(profile_string(profile, allocator->notes[i].value), 0,
                          card->notes[card->note_count].value, sizeof card->notes[0].value);
        card->note_count++;
    }
    double cells[OOM_CARD_MAP];
    if (!oom_memory_map_cells(allocator, cells, OOM_CARD_MAP))
        return;
    for (int c = 0; c < OOM_CARD_MAP; c++)
        card->map[c] = cells[c] >= 0.999 ? '#' : cells[c] > 0.001 ? '+' : '.';
    card->map[OOM_CARD_MAP] = '\0';
}

void oom_card_build(struct oom_card *card, const struct profile *profile,
                    const struct allocator *allocator, const struct oom_event *oom,
                    const struct allocation_row *rows, size_t row_count, bool holders_at_oom)
{
    memset(card, 0, sizeof *card);
    struct oom_account account = oom_account_of(allocator, oom);
    card->count = allocator->oom_count;
    card->number = allocator_oom_index(allocator, oom) + 1;
    if (allocator->timeline_kind != TIMELINE_NONE)
        format_milliseconds(oom->time_ps, card->when, sizeof card->when);
    card->op_id = oom->op_name;
    if (oom->op_name)
        format_safe_bytes(profile_string(profile, oom->op_name), 0, card->op, sizeof card->op);
    card_fact(card, "Requested", oom->requested_bytes, true);
    card_fact(card, "Allocated", oom->allocated_bytes, false);
    card_fact(card, "Reserved", oom->reserved_bytes, false);
    card_fact(card, "Reserved but free", account.reserved_free_bytes, false);
    card_fact(card, "Free on the device", oom->device_free_bytes, false);
    if (oom->largest_free_bytes >= 0)
        card_fact(card, "Largest free block", oom->largest_free_bytes, false);
    card_fact(card, "Capacity", account.capacity_bytes, false);
    card->verdict_kind = account.verdict;
    card_verdict(card, oom, &account);
    card->holders_at_oom = holders_at_oom;
    card_holders(card, profile, rows, row_count);
    card_notes_and_map(card, profile, allocator);
}

void oom_card_build_for_report(struct oom_card *card, const struct profile *profile,
                               size_t allocator_index, const struct oom_event *oom)
{
    const struct allocator *allocator = &profile->allocators[allocator_index];
    struct live_index *index = NULL;
    struct live_rows rows = {0};
    bool live = allocator->timeline_kind == TIMELINE_COMPLETE && allocator->timeline.count &&
                live_index_build(profile, allocator, 0, &index) == LIVE_OK &&
                live_index_rows_at(index, oom->time_ps, &rows) == LIVE_OK;
    /* Without a timeline (an OOM log) the rows are the state at the OOM. */
    if (live)
        oom_card_build(card, profile, allocator, oom, rows.rows, rows.count, true);
    else
        oom_card_build(card, profile, allocator, oom, allocator->rows, allocator->row_count,
                       allocator->timeline_kind == TIMELINE_NONE);
    live_rows_free(&rows);
    live_index_free(index);
}

const char *oom_card_holders_title(const struct oom_card *card)
{
    if (card->holders_at_oom)
        return card->holders_by_location ? "Top holders at the OOM, by location or op"
                                         : "Top holders at the OOM, by op";
    return card->holders_by_location ? "Top holders at the peak, by location or op"
                                     : "Top holders at the peak, by op";
}

/* Text in lines of at most `width` bytes, broken at spaces (a word
 * longer than that gets a line of its own). */
static void print_wrapped(FILE *out, const char *text, const char *indent, size_t width)
{
    while (*text) {
        size_t length = strlen(text), cut = length;
        if (length > width) {
            cut = width;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = strcspn(text, " ");
        }
        fprintf(out, "%s  %.*s\n", indent, (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
    }
}

void oom_card_print(FILE *out, const struct oom_card *card, const char *indent)
{
    fprintf(out, "%sOut of memory", indent);
    if (card->when[0])
        fprintf(out, " at %s", card->when);
    if (card->count > 1)
        fprintf(out, " (%zu of %zu)", card->number, card->count);
    if (card->op[0])
        fprintf(out, ", requested by %s", card->op);
    fputc('\n', out);
    for (size_t i = 0; i < card->fact_count; i++)
        fprintf(out, "%s  %-26s %14s\n", indent, card->facts[i].label, card->facts[i].value);
    print_wrapped(out, card->verdict, indent, 74);
    if (card->note_count)
        fprintf(out, "%s  From the log:\n", indent);
    for (size_t i = 0; i < card->note_count; i++)
        fprintf(out, "%s    %-30s %s\n", indent, card->notes[i].label, card->notes[i].value);
    if (card->map[0])
        fprintf(out, "%s  Memory map (# in use, . free, + both):\n%s    %s\n", indent, indent,
                card->map);
    if (card->holder_count == 0)
        return;
    fprintf(out, "%s  %s:\n", indent, oom_card_holders_title(card));
    for (size_t i = 0; i < card->holder_count; i++)
        fprintf(out, "%s    %12s  %s\n", indent, card->holders[i].bytes, card->holders[i].name);
}
