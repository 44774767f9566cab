#include "config.h"
#include "model/load.h"
/* placeholder until the json loader lands */
enum load_status load_json(const uint8_t *bytes, size_t size, struct profile *profile,
                         struct load_error *error)
{
    (void)bytes; (void)size; (void)profile;
    load_error_set(error, "json profiles are not supported yet");
    return LOAD_BAD_INPUT;
}
