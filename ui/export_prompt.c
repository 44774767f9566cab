#include "config.h"

#include "ui/export_prompt.h"

#include <stdlib.h>
#include <string.h>

#include "ui/viewer.h"

/* What the focused pane exports (its export op), or the summary of every
 * allocator; false when the pane has nothing to export. */
static bool export_prompt_request(struct viewer *viewer, struct export_request *request)
{
    struct pane *pane = viewer->panes[viewer->focus];
    if (pane->ops->export)
        return pane->ops->export(pane, viewer, request);
    export_request_init(request, EXPORT_VIEW_SUMMARY, viewer->profile, NULL);
    return true;
}

static void export_prompt_write(struct viewer *viewer, bool replace);

static void export_prompt_on_replace(struct viewer *viewer, const char *answer)
{
    if (answer[0] == 'y' || answer[0] == 'Y') {
        export_prompt_write(viewer, true);
        return;
    }
    /* Raw: the status line escapes it, once. */
    viewer_status(viewer, false, "not replaced: %s", viewer->export_prompt.path);
}

static void export_prompt_write(struct viewer *viewer, bool replace)
{
    struct export_prompt_state *state = &viewer->export_prompt;
    struct export_request request;
    if (!export_prompt_request(viewer, &request) || request.view != state->view) {
        viewer_status(viewer, true, "nothing to export: no allocator");
        return;
    }
    size_t rows = 0;
    char error[EXPORT_ERROR_SIZE];
    enum export_status status =
        export_to_path(state->path, replace, &request, &rows, error, sizeof error);
    const char *path = state->path; /* raw: the status line escapes it, once */
    if (status == EXPORT_OK)
        viewer_status(viewer, false, "wrote %zu row%s to %s", rows, rows == 1 ? "" : "s", path);
    else if (status == EXPORT_EXISTS)
        viewer_prompt_begin(viewer, "file exists; replace? [y/N]", "", NULL,
                            export_prompt_on_replace, NULL);
    else
        viewer_status(viewer, true, "export failed: %s: %s", path, error);
}

static void export_prompt_on_path(struct viewer *viewer, const char *path)
{
    if (!path[0]) {
        viewer_status(viewer, false, "export cancelled");
        return;
    }
    snprintf(viewer->export_prompt.path, sizeof viewer->export_prompt.path, "%s", path);
    export_prompt_write(viewer, false);
}

void export_prompt_begin(struct viewer *viewer)
{
    if (!viewer->profile) {
        viewer_status(viewer, true, "nothing to export: this host did not load");
        return;
    }
    struct export_request request;
    if (!export_prompt_request(viewer, &request)) {
        viewer_status(viewer, true, "nothing to export: no allocator");
        return;
    }
    enum export_view view = request.view;
    viewer->export_prompt.view = view;
    char *path = export_default_path(viewer->profile, viewer->allocator, view);
    if (!path) {
        viewer_status(viewer, true, "out of memory");
        return;
    }
    char label[32];
    snprintf(label, sizeof label, "export %s to:", export_view_name(view));
    viewer_prompt_begin(viewer, label, path, NULL, export_prompt_on_path, NULL);
    free(path);
}
