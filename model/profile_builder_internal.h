/* profile_builder_internal: what the builder's finishing
 * (model/profile_builder_finish.c) takes from the builder's own file
 * (model/profile_builder.c).
 * Called by: those two files only. Must not: be included by loaders
 * (they use model/profile_builder.h). */
#ifndef MEMTOP_PROFILE_BUILDER_INTERNAL_H
#define MEMTOP_PROFILE_BUILDER_INTERNAL_H

#include <stdbool.h>

#include "model/profile_builder.h"
#include "model/util/text.h"

/* Frees the builder's own state (not the profile) and empties it. */
void profile_builder_free_state(struct profile_builder *builder);
/* Appends one line to the profile's warnings whatever their count (the
 * public calls keep PROFILE_WARNINGS_MAX; finish adds the line that says
 * how many more there were); false when memory runs out. */
bool profile_builder_append_warning(struct profile_builder *builder, struct text text);
/* Sorts `timeline` by time (stably) unless it is sorted; false when
 * memory runs out. */
bool profile_builder_timeline_sorted(struct snapshot_columns *timeline);

#endif
