#include "config.h"

#include "model/util/index_sort.h"

#include <stdlib.h>
#include <string.h>

void index_sort_stable(size_t *indices, size_t *scratch, size_t count, index_before_fn before,
                       const void *context)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t left = 0; left < count; left += 2 * width) {
            size_t middle = left + width < count ? left + width : count;
            size_t right = middle + width < count ? middle + width : count;
            size_t a = left, b = middle, out = left;
            /* On ties the left run's index goes first: that is the stability. */
            while (a < middle && b < right)
                scratch[out++] = before(context, indices[b], indices[a]) ? indices[b++]
                                                                         : indices[a++];
            while (a < middle)
                scratch[out++] = indices[a++];
            while (b < right)
                scratch[out++] = indices[b++];
        }
        memcpy(indices, scratch, count * sizeof *indices);
    }
}

size_t *index_sort_order(size_t count, index_before_fn before, const void *context)
{
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    size_t *scratch = malloc((count ? count : 1) * sizeof *scratch);
    if (order && scratch) {
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        index_sort_stable(order, scratch, count, before, context);
    } else {
        free(order);
        order = NULL;
    }
    free(scratch);
    return order;
}
