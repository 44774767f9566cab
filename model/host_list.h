/* host_list: the profiles of one job, one per host.
 *
 * A job on several machines leaves one profile per host (a TensorBoard
 * run directory holds <host>.xplane.pb or <host>.memory_profile.json.gz
 * for each; model/logdir.h reads it). memtop takes files, run
 * directories and directories of profile files; a host is named from its
 * file name (the file name minus its XProf suffix, dots and all, or as
 * its format's row says), and hosts whose names clash are named apart
 * (by file name, then by directory, then by path). A host is loaded only
 * when asked for, on whichever thread asks (model/host_loader.h loads
 * them in the background): its state says when its profile, status and
 * error are there to read. A host that fails to load keeps its error;
 * the others stay usable.
 * Called by: main, the viewer and the background loader. Must not: parse
 * files (load.c does) or keep its own list of suffixes. */
#ifndef MEMTOP_HOST_LIST_H
#define MEMTOP_HOST_LIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/load.h"
#include "model/logdir.h"
#include "model/profile.h"

enum host_state {
    HOST_IDLE,    /* not loaded */
    HOST_LOADING, /* a thread is loading it */
    HOST_LOADED,  /* status, error and profile are set (profile NULL on failure) */
};

struct host {
    char *name;
    char *path;
    /* The file is one no format of this memtop reads (an XProf kind whose
     * format_suffix no row lists): a load says so without reading it. */
    const struct xprof_file_kind *unread_kind;
    bool attempted;          /* a load was tried */
    enum load_status status; /* of that load */
    struct load_error error;
    struct profile *profile; /* NULL until loaded, or when it failed */
    /* enum host_state. The thread that loads a host writes the fields
     * above, then stores HOST_LOADED (release); another thread reads
     * them only after it reads HOST_LOADED (host_state(), acquire). */
    atomic_int state;
    atomic_int percent; /* of a load in progress, 0..100 */
    /* The file as the load found it (size, modification time): a reload
     * keeps a profile whose file has not changed since. */
    int64_t file_size, file_mtime_ns;
};

struct host_list {
    struct host *hosts;
    size_t count;
    char *run; /* the run's name when the hosts are a run of a log directory, else NULL */
};

/* Expands `paths` (files and directories of profiles) into hosts, sorted
 * by name within a directory. LOAD_BAD_INPUT, with the offending path in
 * *bad_path, when a directory cannot be read or holds no profile file. */
enum load_status host_list_open(struct host_list *list, char *const *paths, size_t path_count,
                                const char **bad_path, struct load_error *error);
/* The hosts of a run that have a memory source, its best one each;
 * `run_name` (may be NULL) is recorded as list->run. */
enum load_status host_list_open_run(struct host_list *list, const struct logdir_run *run,
                                    const char *run_name, struct load_error *error);

/* The profile of host `index`, loading it on this thread on first use;
 * NULL when it failed (see the host's status and error), or while
 * another thread loads it. */
struct profile *host_list_load(struct host_list *list, size_t index,
                               const struct load_options *options);

/* For a loader thread: takes an idle host (IDLE -> LOADING); false when
 * it is not idle. Then host_load_claimed() loads it and publishes it. */
bool host_claim(struct host *host);
void host_load_claimed(struct host *host, const struct load_options *options);
/* Whether the file of a loaded host is as its load found it. */
bool host_file_unchanged(const struct host *host);
/* Moves a loaded host's profile, status and error into `to` (an idle host
 * of another list, for the same file), leaving `from` idle; false (and
 * nothing moved) when either is not in that state. */
bool host_adopt(struct host *to, struct host *from);
/* Frees a loaded host's profile and makes it idle again; nothing when it
 * is loading (its loader owns it). */
void host_unload(struct host *host);

enum host_state host_state(const struct host *host);
/* The percent of a load in progress. */
int host_load_percent(const struct host *host);

void host_list_free(struct host_list *list);

/* "worker-3" for ".../worker-3.memory_profile.json.gz", "BlueDiamond.local"
 * for ".../BlueDiamond.local.xplane.pb": the file name minus its XProf
 * suffix; for other profile files the name before its first dot, or
 * minus the suffix when the format's row says so; malloc'd. */
char *host_name_from_path(const char *path);

#endif
