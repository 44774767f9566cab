#include "config.h"

#include "model/xprof_files.h"

#include <string.h>

/* What XProf offers for a run with XSpace files, whatever they hold
 * (xprof/convert/xplane_to_tool_names.cc: these always; kernel_stats,
 * memory_viewer, graph_viewer and the TPU counters' tools only when the
 * planes say so, which a directory listing cannot see). XProf writes
 * them with a marker for the data's source (trace_viewer@, memory_profile^);
 * the names here are the tools' own. */
static const char *const xspace_tools[] = {
    "trace_viewer",   "overview_page", "input_pipeline_analyzer", "framework_op_stats",
    "memory_profile", "op_profile",    "hlo_stats",               "roofline_model",
    NULL,
};

static const char *const memory_profile_tools[] = {"memory_profile", NULL};
static const char *const trace_viewer_tools[] = {"trace_viewer", NULL};
static const char *const op_profile_tools[] = {"op_profile", NULL};
static const char *const input_pipeline_tools[] = {"input_pipeline_analyzer", NULL};
static const char *const overview_page_tools[] = {"overview_page", NULL};
static const char *const memory_viewer_tools[] = {"memory_viewer", NULL};
static const char *const pod_viewer_tools[] = {"pod_viewer", NULL};
static const char *const framework_op_stats_tools[] = {"framework_op_stats", NULL};
static const char *const kernel_stats_tools[] = {"kernel_stats", NULL};
static const char *const tf_data_tools[] = {"tf_data_bottleneck_analysis", NULL};

/* XProf's TOOLS table (plugin/xprof/profile_plugin.py) and the suffixes
 * of spec section 1. The XSpace rows come first: kinds are looked up by
 * the longest suffix, and xprof_file_kind_is_xspace() checks these two. */
static const struct xprof_file_kind kinds[] = {
    {".xplane.pb", "xplane", xspace_tools, 1, NULL, true},
    {".xplane.riegeli", "riegeli", xspace_tools, 2, NULL, true},
    {".memory_profile.json.gz", "memory_profile", memory_profile_tools, 3, ".json.gz", true},
    {".trace.json.gz", "trace", trace_viewer_tools, 0, NULL, true},
    {".trace", "trace", trace_viewer_tools, 0, NULL, true},
    {".tracetable", "tracetable", trace_viewer_tools, 0, NULL, true},
    {".op_profile.json", "op_profile", op_profile_tools, 0, NULL, true},
    {".input_pipeline.json", "input_pipeline", input_pipeline_tools, 0, NULL, true},
    {".input_pipeline.pb", "input_pipeline", input_pipeline_tools, 0, NULL, true},
    {".overview_page.json", "overview_page", overview_page_tools, 0, NULL, true},
    {".overview_page.pb", "overview_page", overview_page_tools, 0, NULL, true},
    {".memory_viewer.json", "memory_viewer", memory_viewer_tools, 0, NULL, true},
    {".pod_viewer.json", "pod_viewer", pod_viewer_tools, 0, NULL, true},
    {".tensorflow_stats.pb", "tensorflow_stats", framework_op_stats_tools, 0, NULL, true},
    {".kernel_stats.pb", "kernel_stats", kernel_stats_tools, 0, NULL, true},
    {".tf_data_bottleneck_analysis.json", "tf_data", tf_data_tools, 0, NULL, true},
    /* One file per HLO module, named after the module, not a host. */
    {".hlo_proto.pb", "hlo_proto", NULL, 0, NULL, false},
};

#define KIND_COUNT (sizeof kinds / sizeof *kinds)

size_t xprof_file_kind_count(void)
{
    return KIND_COUNT;
}

const struct xprof_file_kind *xprof_file_kind_at(size_t index)
{
    return index < KIND_COUNT ? &kinds[index] : NULL;
}

bool xprof_file_kind_is_xspace(const struct xprof_file_kind *kind)
{
    return kind == &kinds[0] || kind == &kinds[1];
}

const struct xprof_file_kind *xprof_file_kind_for_name(const char *name, size_t *suffix_length)
{
    const struct xprof_file_kind *found = NULL;
    size_t name_length = strlen(name), longest = 0;
    for (size_t i = 0; i < KIND_COUNT; i++) {
        size_t length = strlen(kinds[i].suffix);
        if (length > longest && name_length > length &&
            strcmp(name + name_length - length, kinds[i].suffix) == 0) {
            found = &kinds[i];
            longest = length;
        }
    }
    *suffix_length = longest;
    return found;
}
