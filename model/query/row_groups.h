/* row_groups: the rows a table shows, grouped by what they share, each
 * group with its total, largest first, so that the heavy layer or the
 * heavy line of code shows at a glance. Keys:
 *   - the op-name scope, as ncdu walks a tree: op names are paths
 *     ("model/dense_58/MatMul"), and under an open scope ("" at the top,
 *     "model/" one level down) the rows group by their next scope
 *     ("model/dense_58/"); the rows of an op with no deeper scope are
 *     one group named by the op ("aten::mm", "IteratorGetNext": no name
 *     repeats, issue 22), or a row alone (a group of one row, marked
 *     single_row) when it is the op's only one;
 *   - the op's whole name, scopes and all (one group per distinct op);
 *   - the module (a PyTorch trace's innermost nn.Module);
 *   - the location (file:line of the innermost frame in the user's code:
 *     Skyline's rows, PyTorch traces and snapshots);
 *   - the file of that frame;
 *   - the function of that frame (the location's words after
 *     "file:line ": "step" in "torch_trace.py:15 step").
 * Each key is offered only where the rows record it
 * (row_group_key_recorded).
 * (By region and by data type: model/query/peak_breakdown.h.)
 *
 * A group's total is what its rows hold (allocation_row_bytes: size
 * times occurrences), leaving out the rows a report's totals leave out
 * (allocation_row_is_uncounted), as the table's own total does.
 *
 * Called by the table pane (its grouped view and the rows of an open
 * group, through allocation_table_set_within) and by the allocations
 * export (--group-by, the viewer's `e` on groups). Works on whatever the
 * table shows (its row source, filter and threshold): never on an
 * allocator's rows directly. Must not draw or format. */
#ifndef MEMTOP_ROW_GROUPS_H
#define MEMTOP_ROW_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/util/text.h"

struct allocation_table;

enum row_group_key {
    ROW_GROUP_NONE,     /* no grouping: every row */
    ROW_GROUP_OP_SCOPE, /* the op name's next scope under an open one */
    ROW_GROUP_LOCATION, /* file:line of the innermost frame in the user's code */
    ROW_GROUP_FILE,     /* that frame's file */
    ROW_GROUP_OP,       /* the op's whole name */
    ROW_GROUP_MODULE,   /* the innermost module */
    ROW_GROUP_FUNCTION, /* the function of the location's frame */
    ROW_GROUP_KEY_COUNT
};

struct row_group {
    /* What its rows share: "model/dense_58/", "model/net.py:14",
     * "model/net.py"; "" for rows with no location. Points into the
     * profile's strings (name_length bytes; not NUL-terminated for a
     * scope). A single row's name is its op name's (the table pane
     * shows allocation_table_op_name of the row at first_position). */
    const char *name;
    size_t name_length;
    enum row_group_key key; /* what it is a group of (row_group_empty_name) */
    bool single_row; /* op scope: a row directly in the open scope */
    int64_t bytes;   /* saturating */
    size_t row_count;
    size_t first_position; /* its first row's position in the table's order */
};

struct row_groups {
    enum row_group_key key;
    struct row_group *groups; /* largest first; equal totals by name, then table order */
    size_t count;
    size_t group_count;  /* of them, the ones that are groups (not single rows) */
    int64_t total_bytes; /* of every group (saturating) */
};

/* Groups the rows `table` shows by `key`; for ROW_GROUP_OP_SCOPE only
 * the rows under `scope` ("" for every row; a scope ends with '/'), by
 * their next scope under it. ROW_GROUP_NONE gives no groups. false when
 * memory runs out (the groups are then empty but valid). */
bool row_groups_build(struct row_groups *groups, const struct allocation_table *table,
                      enum row_group_key key, struct text scope);
void row_groups_free(struct row_groups *groups);

/* Whether `row` belongs to the group named `name` (its bytes):
 * under the scope (its op name starts with it), at the location, in the
 * file. ROW_GROUP_NONE: every row. */
bool row_group_contains(const struct profile *profile, enum row_group_key key, struct text name,
                        const struct allocation_row *row);

/* Whether the rows `table` has (before its filter) record `key`: scope
 * and op always; module where a row has one; location, file and
 * function where a row has a location (a function, for function). */
bool row_group_key_recorded(const struct allocation_table *table, enum row_group_key key);

/* What a group of rows without the key's value is called:
 * "(no location: no frame in the user's code)", "(no module)", ... */
const char *row_group_empty_name(enum row_group_key key);

/* The key's one name, for people and --group-by: "scope", "op",
 * "module", "location", "file", "function" ("none" for ROW_GROUP_NONE). */
const char *row_group_key_name(enum row_group_key key);
/* The key named `name`; false when none is. */
bool row_group_key_parse(const char *name, enum row_group_key *key);
/* "scope, op, module, location, file, function": for usage messages. */
const char *row_group_key_list(void);
/* The length of the scope above `scope` ("model/dense_58/" -> "model/",
 * "model/" -> ""): a prefix of it. */
size_t row_group_scope_up(struct text scope);

#endif
