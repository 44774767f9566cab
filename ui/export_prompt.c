#include "config.h"

#include "ui/export_prompt.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One key answers: y replaces; n, Enter, Esc or anything else does not. */
static void export_prompt_on_replace(struct viewer *viewer, const char *answer)
{
    if (strcmp(answer, "y") == 0 || strcmp(answer, "Y") == 0) {
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
        viewer_prompt_one_key(viewer, "file exists; replace? [y/N]", export_prompt_on_replace);
    else
        viewer_status(viewer, true, "export failed: %s: %s", path, error);
}

/* The home directory of `user` ("" or NULL: the current user's, $HOME
 * first, as a shell has it); NULL when unknown. */
static const char *home_directory(const char *user)
{
    if (!user || !user[0]) {
        const char *home = getenv("HOME");
        if (home && home[0])
            return home;
        struct passwd *entry = getpwuid(getuid());
        return entry ? entry->pw_dir : NULL;
    }
    struct passwd *entry = getpwnam(user);
    return entry ? entry->pw_dir : NULL;
}

/* "~/x" and "~user/x" as a shell expands them; anything else, and a
 * user nobody knows, as typed. false when the result does not fit. */
static bool expand_home(const char *path, char *out, size_t size)
{
    const char *home = NULL, *rest = path;
    if (path[0] == '~') {
        size_t user_length = strcspn(path + 1, "/");
        char user[256];
        if (user_length < sizeof user) {
            memcpy(user, path + 1, user_length);
            user[user_length] = '\0';
            home = home_directory(user);
            rest = path + 1 + user_length;
        }
    }
    int written = home ? snprintf(out, size, "%s%s", home, rest) : snprintf(out, size, "%s", path);
    return written >= 0 && (size_t)written < size;
}

static void export_prompt_on_path(struct viewer *viewer, const char *path)
{
    if (!path[0]) {
        viewer_status(viewer, false, "export cancelled");
        return;
    }
    if (!expand_home(path, viewer->export_prompt.path, sizeof viewer->export_prompt.path)) {
        viewer_status(viewer, true, "export failed: the path is too long");
        return;
    }
    export_prompt_write(viewer, false);
}

/* The name the prompt offers: the host's name first when there are
 * several; the allocator's only for what is the allocator's (the
 * summary of every allocator and the profile's HLO modules are none's). */
static char *export_prompt_default_path(const struct viewer *viewer,
                                        const struct export_request *request)
{
    const char *host = viewer->hosts->count > 1 && !viewer_comparing(viewer)
                           ? viewer->hosts->hosts[viewer->host_index].name
                           : NULL;
    const struct profile *profile = request->profile;
    const struct allocator *allocator = request->view == EXPORT_VIEW_HLO ? NULL
                                                                          : request->allocator;
    if (!allocator && request->new_allocator) { /* compared: only NEW has it */
        profile = request->new_profile;
        allocator = request->new_allocator;
    }
    return export_default_path(profile, host, allocator, request->view);
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
    char *path = export_prompt_default_path(viewer, &request);
    if (!path) {
        viewer_status(viewer, true, "out of memory");
        return;
    }
    char label[32];
    snprintf(label, sizeof label, "export %s to:", export_view_name(view));
    viewer_prompt_begin(viewer, label, path, NULL, export_prompt_on_path, NULL);
    free(path);
}
