/* host_list: the profiles of one job, one per host.
 *
 * A job on several machines leaves one profile per host (TensorBoard's
 * profile plugin stores <run>/<host>.memory_profile.json.gz). memtop takes
 * files and directories; every file directly inside a directory whose name
 * ends in a suffix of the format table (model/input_format.h) is a host. A
 * host is named from its file name as its format's row says, and is
 * loaded only when first asked for, so opening a run of 64 hosts is
 * instant. A host that fails to load keeps its error; the others stay
 * usable.
 * Called by: main and the viewer. Must not: parse files (load.c does) or
 * keep its own list of suffixes. */
#ifndef MEMTOP_HOST_LIST_H
#define MEMTOP_HOST_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "model/load.h"
#include "model/profile.h"

struct host {
    char *name;
    char *path;
    bool attempted;          /* a load was tried */
    enum load_status status; /* of that load */
    struct load_error error;
    struct profile *profile; /* NULL until loaded, or when it failed */
};

struct host_list {
    struct host *hosts;
    size_t count;
};

/* Expands `paths` (files and directories) into hosts, sorted by file name
 * within a directory. LOAD_BAD_INPUT, with the offending path in
 * *bad_path, when a directory cannot be read or holds no profile file. */
enum load_status host_list_open(struct host_list *list, char *const *paths, size_t path_count,
                                const char **bad_path, struct load_error *error);

/* The profile of host `index`, loading it on first use; NULL when it
 * failed (see the host's status and error). */
struct profile *host_list_load(struct host_list *list, size_t index,
                               const struct load_options *options);

void host_list_free(struct host_list *list);

/* "worker-3" for ".../worker-3.memory_profile.json.gz": the file name
 * before its first dot for MemoryProfile files, minus the longest known
 * suffix for a format whose row says so; malloc'd. */
char *host_name_from_path(const char *path);

#endif
