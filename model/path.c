#include "config.h"

#include "model/path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *path_join(const char *directory, const char *name)
{
    size_t length = strlen(directory);
    while (length > 1 && directory[length - 1] == '/')
        length--;
    size_t size = length + strlen(name) + 2;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%.*s/%s", (int)length, directory, name);
    return path;
}

const char *path_base_name(const char *path)
{
    const char *base = path;
    for (const char *at = path; *at; at++)
        if (at[0] == '/' && at[1] && at[1] != '/')
            base = at + 1;
    return base;
}

bool path_in_profile_plugin(const char *path)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved))
        return false;
    char *slash = strrchr(resolved, '/');
    if (!slash || slash == resolved)
        return false;
    *slash = '\0';
    size_t length = strlen(resolved), tail = strlen("/plugins/profile");
    return length >= tail && strcmp(resolved + length - tail, "/plugins/profile") == 0;
}
