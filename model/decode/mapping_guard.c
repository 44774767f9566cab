#include "config.h"

#include "model/decode/mapping_guard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Guards on at once: a loader's threads and the viewer's. A thread that
 * finds none free loads unguarded (as memtop did before guards). */
#define GUARD_SLOTS 8

struct guard_slot {
    volatile uintptr_t base;
    volatile size_t size; /* 0: the slot is free */
    volatile sig_atomic_t vanished;
};

static struct guard_slot slots[GUARD_SLOTS];
static uintptr_t page_size;
static pthread_mutex_t guards_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned guards_on;
static struct sigaction previous;
/* This thread's slot, or -1. */
static _Thread_local int own_slot = -1;

/* Only mmap and sigaction here: both are system calls, safe in a handler.
 * A SIGBUS from reading memory goes to the thread that read it, whose
 * slot it filled before it read. */
static void mapping_guard_on_sigbus(int signal_number, siginfo_t *info, void *context)
{
    (void)signal_number;
    (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < GUARD_SLOTS; i++) {
        struct guard_slot *slot = &slots[i];
        if (!slot->size || address < slot->base || address >= slot->base + slot->size)
            continue;
        uintptr_t page = address & ~(page_size - 1);
        size_t rest = slot->base + slot->size - page;
        void *zeros = mmap((void *)page, rest, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                           -1, 0);
        if (zeros != MAP_FAILED) {
            slot->vanished = 1;
            return; /* the read is retried, and now finds zeros */
        }
        break;
    }
    /* Not ours, or no memory for the zeros: the fault repeats on return
     * and goes to whoever handled SIGBUS before (by default, death). */
    sigaction(SIGBUS, &previous, NULL);
}

void mapping_guard_begin(const uint8_t *base, size_t size)
{
    pthread_mutex_lock(&guards_lock);
    for (int i = 0; i < GUARD_SLOTS && own_slot < 0; i++) {
        if (slots[i].size == 0) {
            own_slot = i;
            slots[i].base = (uintptr_t)base;
            slots[i].vanished = 0;
            slots[i].size = size ? size : 1;
        }
    }
    if (own_slot >= 0 && guards_on++ == 0) {
        page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = mapping_guard_on_sigbus;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &previous);
    }
    pthread_mutex_unlock(&guards_lock);
}

bool mapping_guard_end(void)
{
    if (own_slot < 0)
        return false;
    pthread_mutex_lock(&guards_lock);
    struct guard_slot *slot = &slots[own_slot];
    bool vanished = slot->vanished != 0;
    slot->size = 0;
    own_slot = -1;
    if (--guards_on == 0)
        sigaction(SIGBUS, &previous, NULL);
    pthread_mutex_unlock(&guards_lock);
    return vanished;
}
