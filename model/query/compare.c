#include "config.h"

#include "model/query/compare.h"

#include "model/query/allocation_table.h"
#include "model/util/saturating.h"

#include <stdlib.h>
#include <string.h>

/* ---- allocators matched by memory id ---- */

static struct allocator_delta allocator_delta_of(const struct allocator *base,
                                                 const struct allocator *new)
{
    const struct allocator_summary *b = &base->summary, *n = &new->summary;
    return (struct allocator_delta){
        .peak_bytes = saturating_subtract(n->peak_bytes, b->peak_bytes),
        .heap_bytes = saturating_subtract(n->peak.heap_bytes, b->peak.heap_bytes),
        .stack_bytes = saturating_subtract(n->peak.stack_bytes, b->peak.stack_bytes),
        .capacity_bytes = saturating_subtract(n->capacity_bytes, b->capacity_bytes),
        /* counts fit in int64: they count snapshots held in memory */
        .allocations = (int64_t)n->allocations - (int64_t)b->allocations,
        .deallocations = (int64_t)n->deallocations - (int64_t)b->deallocations,
    };
}

/* The new allocator base allocator `index` is paired with by a --pair,
 * or -1; an allocator already taken by an earlier pairing is skipped. */
static long pairing_partner(const struct profile *base, size_t index, const struct profile *new,
                            const struct allocator_pairing *pairings, size_t pairing_count,
                            const bool *reserved)
{
    for (size_t p = 0; p < pairing_count; p++) {
        long in_base = profile_find_allocator_named(base, pairings[p].base_id);
        long in_new = profile_find_allocator_named(new, pairings[p].new_id);
        if (in_base == (long)index && in_new >= 0 && !reserved[in_new])
            return in_new;
    }
    return -1;
}

bool profile_comparison_build_paired(struct profile_comparison *comparison,
                                     const struct profile *base, const struct profile *new,
                                     const struct allocator_pairing *pairings,
                                     size_t pairing_count)
{
    *comparison = (struct profile_comparison){0};
    size_t most = base->allocator_count + new->allocator_count;
    comparison->pairs = calloc(most ? most : 1, sizeof *comparison->pairs);
    bool *matched = calloc(new->allocator_count ? new->allocator_count : 1, sizeof *matched);
    long *partner = calloc(base->allocator_count ? base->allocator_count : 1, sizeof *partner);
    if (!comparison->pairs || !matched || !partner) {
        free(matched);
        free(partner);
        profile_comparison_free(comparison);
        return false;
    }
    /* Pairings first, so that matching by id never takes their allocators. */
    for (size_t i = 0; i < base->allocator_count; i++) {
        partner[i] = pairing_partner(base, i, new, pairings, pairing_count, matched);
        if (partner[i] >= 0)
            matched[partner[i]] = true;
    }
    for (size_t i = 0; i < base->allocator_count; i++) {
        const struct allocator *allocator = &base->allocators[i];
        long other = partner[i];
        if (other < 0) {
            other = profile_find_allocator(new, profile_string(base, allocator->id));
            other = other >= 0 && !matched[other] ? other : -1;
            if (other >= 0)
                matched[other] = true;
        }
        struct allocator_pair *pair = &comparison->pairs[comparison->count++];
        pair->base = allocator;
        if (other >= 0) {
            pair->new = &new->allocators[other];
            pair->delta = allocator_delta_of(pair->base, pair->new);
        }
    }
    for (size_t i = 0; i < new->allocator_count; i++)
        if (!matched[i])
            comparison->pairs[comparison->count++].new = &new->allocators[i];
    free(matched);
    free(partner);
    return true;
}

bool profile_comparison_build(struct profile_comparison *comparison, const struct profile *base,
                              const struct profile *new)
{
    return profile_comparison_build_paired(comparison, base, new, NULL, 0);
}

void profile_comparison_free(struct profile_comparison *comparison)
{
    free(comparison->pairs);
    comparison->pairs = NULL;
    comparison->count = 0;
}

/* ---- what was live at each peak, by op name ---- */

/* One row of either side, before grouping. */
struct op_entry {
    struct text name;
    int64_t bytes;
    int64_t count;
    bool is_new;
};

static int op_entry_compare(const void *a, const void *b)
{
    return text_compare(((const struct op_entry *)a)->name, ((const struct op_entry *)b)->name);
}

static struct text op_entry_key(const struct profile *profile, const struct allocation_row *row,
                                enum op_comparison_key key)
{
    if (row->origin == ROW_UNRESOLVED)
        return text_of(COMPARE_UNRESOLVED_NAME);
    if (key == COMPARE_BY_LOCATION)
        return row->location ? profile_string(profile, row->location)
                             : text_of(COMPARE_NO_LOCATION_NAME);
    return profile_string(profile, row->op_name);
}

static size_t op_entries_add(struct op_entry *entries, enum op_comparison_key key,
                             const struct profile *profile, const struct allocator *allocator,
                             bool is_new)
{
    if (!allocator)
        return 0;
    for (size_t i = 0; i < allocator->row_count; i++) {
        const struct allocation_row *row = &allocator->rows[i];
        int64_t occurrences = row->occurrences < 1 ? 1 : row->occurrences;
        struct text name = op_entry_key(profile, row, key);
        entries[i] = (struct op_entry){name, allocation_row_bytes(row), occurrences, is_new};
    }
    return allocator->row_count;
}

struct text op_delta_name(const struct op_delta *row)
{
    return text_make(row->op_name, row->op_name_length);
}

/* Sums runs of one name into table->rows; returns how many. */
static size_t op_entries_group(const struct op_entry *entries, size_t count,
                               struct op_delta *rows)
{
    size_t groups = 0;
    for (size_t i = 0; i < count; i++) {
        const struct op_entry *entry = &entries[i];
        if (groups == 0 || !text_equal(op_delta_name(&rows[groups - 1]), entry->name))
            rows[groups++] = (struct op_delta){.op_name = entry->name.bytes,
                                               .op_name_length = entry->name.length};
        struct op_delta *row = &rows[groups - 1];
        if (entry->is_new) {
            row->new_bytes = saturating_add(row->new_bytes, entry->bytes);
            row->new_count = saturating_add(row->new_count, entry->count);
        } else {
            row->base_bytes = saturating_add(row->base_bytes, entry->bytes);
            row->base_count = saturating_add(row->base_count, entry->count);
        }
    }
    for (size_t i = 0; i < groups; i++)
        rows[i].delta_bytes = saturating_subtract(rows[i].new_bytes, rows[i].base_bytes);
    return groups;
}

static uint64_t magnitude(int64_t value)
{
    return value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
}

static int op_delta_compare(const void *a, const void *b)
{
    const struct op_delta *x = a, *y = b;
    uint64_t size_x = magnitude(x->delta_bytes), size_y = magnitude(y->delta_bytes);
    if (size_x != size_y)
        return size_x > size_y ? -1 : 1;
    return text_compare(op_delta_name(x), op_delta_name(y));
}

static bool allocator_has_location(const struct allocator *allocator)
{
    for (size_t i = 0; allocator && i < allocator->row_count; i++)
        if (allocator->rows[i].location != 0)
            return true;
    return false;
}

enum op_comparison_key op_comparison_key_for(const struct allocator *base_allocator,
                                             const struct allocator *new_allocator)
{
    return allocator_has_location(base_allocator) || allocator_has_location(new_allocator)
               ? COMPARE_BY_LOCATION
               : COMPARE_BY_OP;
}

bool op_comparison_build(struct op_comparison *table, const struct profile *base,
                         const struct allocator *base_allocator, const struct profile *new,
                         const struct allocator *new_allocator)
{
    return op_comparison_build_by(table, COMPARE_BY_OP, base, base_allocator, new, new_allocator);
}

bool op_comparison_build_by(struct op_comparison *table, enum op_comparison_key key,
                            const struct profile *base, const struct allocator *base_allocator,
                            const struct profile *new, const struct allocator *new_allocator)
{
    *table = (struct op_comparison){0};
    size_t total = (base_allocator ? base_allocator->row_count : 0) +
                   (new_allocator ? new_allocator->row_count : 0);
    if (total == 0)
        return true;
    struct op_entry *entries = malloc(total * sizeof *entries);
    table->rows = malloc(total * sizeof *table->rows);
    if (!entries || !table->rows) {
        free(entries);
        op_comparison_free(table);
        return false;
    }
    size_t count = op_entries_add(entries, key, base, base_allocator, false);
    count += op_entries_add(entries + count, key, new, new_allocator, true);
    qsort(entries, count, sizeof *entries, op_entry_compare);
    table->count = op_entries_group(entries, count, table->rows);
    free(entries);
    qsort(table->rows, table->count, sizeof *table->rows, op_delta_compare);
    return true;
}

void op_comparison_free(struct op_comparison *table)
{
    free(table->rows);
    table->rows = NULL;
    table->count = 0;
}

/* ---- hosts of two runs matched by name ---- */

bool compare_match_hosts(const struct host_list *base, size_t base_first, size_t base_count,
                         const struct host_list *new, size_t new_first, size_t new_count,
                         struct host_match **matches, size_t *count)
{
    *count = 0;
    *matches = calloc(base_count + new_count ? base_count + new_count : 1, sizeof **matches);
    bool *matched = calloc(new_count ? new_count : 1, sizeof *matched);
    if (!*matches || !matched) {
        free(*matches);
        free(matched);
        *matches = NULL;
        return false;
    }
    for (size_t i = 0; i < base_count; i++) {
        struct host_match *match = &(*matches)[(*count)++];
        *match = (struct host_match){(long)(base_first + i), -1};
        for (size_t j = 0; j < new_count && match->new < 0; j++)
            if (!matched[j] &&
                strcmp(base->hosts[base_first + i].name, new->hosts[new_first + j].name) == 0) {
                matched[j] = true;
                match->new = (long)(new_first + j);
            }
    }
    for (size_t j = 0; j < new_count; j++)
        if (!matched[j])
            (*matches)[(*count)++] = (struct host_match){-1, (long)(new_first + j)};
    free(matched);
    return true;
}
