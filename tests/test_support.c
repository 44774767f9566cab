#include "config.h"

#include "tests/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *path_join(const char *directory, const char *relative)
{
    size_t length = strlen(directory) + strlen(relative) + 2;
    char *path = malloc(length);
    if (path)
        snprintf(path, length, "%s/%s", directory, relative);
    return path;
}

char *test_source_path(const char *relative)
{
    const char *source = getenv("MEMTOP_SRCDIR");
    return path_join(source && source[0] ? source : ".", relative);
}

char *test_shared_path(const char *relative)
{
    char *shared = test_source_path("../shared");
    char *path = shared ? path_join(shared, relative) : NULL;
    free(shared);
    if (path && access(path, R_OK) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

struct snapshot test_snapshot(int64_t time_ps, int64_t heap_bytes)
{
    return (struct snapshot){.time_ps = time_ps, .heap_bytes = heap_bytes};
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    uint8_t *bytes = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            uint8_t *grown = realloc(bytes, capacity);
            if (!grown) {
                free(bytes);
                fclose(file);
                return NULL;
            }
            bytes = grown;
        }
        size_t read = fread(bytes + used, 1, capacity - used, file);
        if (read == 0)
            break;
        used += read;
    }
    fclose(file);
    *size = used;
    return bytes;
}
