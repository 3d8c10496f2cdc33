// An LD_PRELOAD malloc counter for Benchmarks/allocations/check.sh: counts every malloc, calloc,
// realloc, posix_memalign and aligned_alloc of the process and prints "MALLOCS <n>" on stderr at
// exit. With MALLOC_COUNT_TRACE_FROM=K it also prints a backtrace of allocations K to
// K + MALLOC_COUNT_TRACE_COUNT (default 20), to find where they come from.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic long count;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void (*real_free)(void *);
// dlsym itself may allocate before the real functions are known: served from here, never freed.
static char early[65536];
static size_t early_used;
static long trace_from = -1, trace_count = 20;
static __thread int tracing;

static void resolve(void) {
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_free = dlsym(RTLD_NEXT, "free");
    const char *from = getenv("MALLOC_COUNT_TRACE_FROM"), *n = getenv("MALLOC_COUNT_TRACE_COUNT");
    if (from) trace_from = atol(from);
    if (n) trace_count = atol(n);
}

static void *early_alloc(size_t size) {
    void *p = early + early_used;
    early_used += (size + 15) & ~(size_t)15;
    if (early_used > sizeof early) abort();
    return p;
}

static void counted(size_t size) {
    long index = atomic_fetch_add(&count, 1);
    if (trace_from < 0 || tracing || index < trace_from || index >= trace_from + trace_count) return;
    tracing = 1;
    void *frames[32];
    int depth = backtrace(frames, 32);
    char header[80];
    int length = snprintf(header, sizeof header, "=== allocation %ld, %zu bytes\n", index, size);
    write(2, header, length);
    backtrace_symbols_fd(frames, depth, 2);
    tracing = 0;
}

void *malloc(size_t size) {
    if (!real_malloc) {
        if (early_used == 0) resolve();
        if (!real_malloc) return early_alloc(size);
    }
    counted(size);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) return memset(early_alloc(n * size), 0, n * size);
    counted(n * size);
    return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (!real_realloc) resolve();
    counted(size);
    return real_realloc(p, size);
}

int posix_memalign(void **p, size_t alignment, size_t size) {
    if (!real_posix_memalign) resolve();
    counted(size);
    return real_posix_memalign(p, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (!real_aligned_alloc) resolve();
    counted(size);
    return real_aligned_alloc(alignment, size);
}

void free(void *p) {
    if ((char *)p >= early && (char *)p < early + sizeof early) return;
    if (!real_free) resolve();
    real_free(p);
}

__attribute__((destructor)) static void report(void) {
    char line[48];
    int length = snprintf(line, sizeof line, "MALLOCS %ld\n", (long)count);
    write(2, line, length);
}
