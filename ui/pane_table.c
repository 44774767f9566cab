#include "config.h"

#include "ui/pane_table.h"

#include "ui/panes/breakdown_pane.h"
#include "ui/panes/chart/chart_pane.h"
#include "ui/panes/compare/compare_ops_pane.h"
#include "ui/panes/compare/compare_pairs_pane.h"
#include "ui/panes/compare/compare_summary_pane.h"
#include "ui/panes/hlo_pane.h"
#include "ui/panes/hosts_pane.h"
#include "ui/panes/list_pane.h"
#include "ui/panes/oom_pane.h"
#include "ui/panes/pod_pane.h"
#include "ui/panes/runs_pane.h"
#include "ui/panes/segments_pane.h"
#include "ui/panes/steps_pane.h"
#include "ui/panes/summary_pane.h"
#include "ui/panes/table/table_pane.h"
#include "ui/viewer.h"

/* The usual panes show one profile; --compare has panes of its own. */
static bool one_profile(const struct viewer *viewer)
{
    return !viewer_comparing(viewer);
}

static bool several_hosts(const struct viewer *viewer)
{
    return one_profile(viewer) && viewer->hosts->count > 1;
}

static bool allocator_shown(const struct viewer *viewer)
{
    return one_profile(viewer) && viewer->allocator != NULL;
}

/* A report without a timeline (Skyline's) has no chart to draw: the
 * table takes its room. One with a memory map (an OOM log's BFC dump)
 * draws the map where the chart goes. */
static bool timeline_shown(const struct viewer *viewer)
{
    return allocator_shown(viewer) && (viewer->allocator->timeline_kind != TIMELINE_NONE ||
                                       viewer->allocator->memory_map_count > 0);
}

/* A report that sorts its memory by kind (Skyline) has no regions or
 * data types to break the peak down by: its summary card shows the kinds.
 * Nor has a format whose rows record no `field` (a PyTorch trace), nor
 * a file whose rows the table shows leave `column` empty (JAX's types
 * are XProf's INVALID only: issue 22), as the table hides that column. */
static bool breakdown_available(const struct viewer *viewer, unsigned field,
                                enum table_column column)
{
    const struct allocator *allocator = viewer->allocator;
    if (!one_profile(viewer))
        return false;
    if (!allocator)
        return true;
    if (allocator->summary.tracked.known || !allocator_records(allocator, field))
        return false;
    const struct allocation_table *rows = &viewer->query.rows;
    return rows->allocator != allocator || allocation_table_column_filled(rows, column);
}

static bool by_region_available(const struct viewer *viewer)
{
    return breakdown_available(viewer, ALLOCATOR_FIELD_REGION, TABLE_COLUMN_REGION_TYPE);
}

static bool by_data_type_available(const struct viewer *viewer)
{
    return breakdown_available(viewer, ALLOCATOR_FIELD_DATA_TYPE, TABLE_COLUMN_DATA_TYPE);
}

static bool hlo_available(const struct viewer *viewer)
{
    return one_profile(viewer) && hlo_pane_available(viewer);
}

static bool steps_available(const struct viewer *viewer)
{
    return one_profile(viewer) && steps_pane_available(viewer);
}

static bool segments_available(const struct viewer *viewer)
{
    return one_profile(viewer) && segments_pane_available(viewer);
}

/* The compare chart: BASE's and NEW's timelines, in the compare
 * subject's own time window. */
static struct pane *compare_chart_create(struct viewer *viewer)
{
    struct viewer_compare *compare = &viewer->compare;
    struct chart_binding binding = {&compare->bars_profile, &compare->bars_allocator,
                                    &compare->time, &compare->overlay};
    return chart_pane_create_bound(binding);
}

/* In drawing and Tab order. */
static const struct pane_row pane_rows[PANE_COUNT] = {
    [PANE_RUNS] = {"runs", runs_pane_create, LAYOUT_PLACE_RUNS, false, true, runs_pane_available},
    [PANE_HOSTS] = {"hosts", hosts_pane_create, LAYOUT_PLACE_HOSTS, false, true, several_hosts},
    [PANE_ALLOCATORS] = {"allocators", list_pane_create_allocators, LAYOUT_PLACE_ALLOCATORS,
                         false, true, one_profile},
    [PANE_SUMMARY] = {"summary", summary_pane_create, LAYOUT_PLACE_SUMMARY, false, false,
                      one_profile},
    [PANE_BY_REGION] = {"at peak by region", breakdown_pane_create_by_region,
                        LAYOUT_PLACE_BY_REGION, false, false, by_region_available},
    [PANE_BY_DATA_TYPE] = {"at peak by type", breakdown_pane_create_by_data_type,
                           LAYOUT_PLACE_BY_DATA_TYPE, false, false, by_data_type_available},
    [PANE_CHART] = {"chart", chart_pane_create, LAYOUT_PLACE_CHART, false, true,
                    timeline_shown},
    [PANE_TABLE] = {"allocations", table_pane_create, LAYOUT_PLACE_TABLE, true, true,
                    allocator_shown},
    [PANE_HLO] = {"HLO modules", hlo_pane_create, LAYOUT_PLACE_HLO, true, true, hlo_available},
    [PANE_STEPS] = {"steps", steps_pane_create, LAYOUT_PLACE_HLO, true, true, steps_available},
    [PANE_OOM] = {"OOM", oom_pane_create, LAYOUT_PLACE_HLO, true, true, oom_pane_available},
    [PANE_SEGMENTS] = {"segments", segments_pane_create, LAYOUT_PLACE_HLO, true, true,
                       segments_available},
    [PANE_POD] = {"pod overview", pod_pane_create, LAYOUT_PLACE_BODY, false, true,
                  pod_pane_available},
    [PANE_COMPARE_PAIRS] = {"allocators", compare_pairs_pane_create, LAYOUT_PLACE_ALLOCATORS,
                            false, true, viewer_comparing},
    [PANE_COMPARE_SUMMARY] = {"summary", compare_summary_pane_create, LAYOUT_PLACE_SUMMARY, false,
                              false, viewer_comparing},
    [PANE_COMPARE_CHART] = {"chart", compare_chart_create, LAYOUT_PLACE_CHART, false, true,
                            viewer_comparing},
    [PANE_COMPARE_OPS] = {"ops at peak", compare_ops_pane_create, LAYOUT_PLACE_TABLE, true, true,
                          viewer_comparing},
};

const struct pane_row *pane_table_row(enum pane_id id)
{
    return &pane_rows[id < PANE_COUNT ? id : 0];
}

bool pane_table_compares(enum pane_id id)
{
    return id >= PANE_COMPARE_PAIRS && id <= PANE_COMPARE_OPS;
}
