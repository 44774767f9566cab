#include "config.h"

#include "ui/ui.h"

#include <stdio.h>

/* placeholder until the viewer lands */
int ui_run(struct host_list *hosts, const struct ui_options *options)
{
    (void)hosts;
    (void)options;
    fputs("memtop: the viewer is not built yet; use --summary\n", stderr);
    return 1;
}
