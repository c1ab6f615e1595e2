/*
 * secmem.c - memory for decrypted secret values.
 *
 * A value must not reach swap, a core dump or a freed heap block that the
 * next malloc hands to someone else.  So each buffer is its own anonymous
 * mapping: locked with mlock when RLIMIT_MEMLOCK allows (best effort: an
 * unlocked buffer still works), marked MADV_DONTDUMP on Linux, and wiped
 * before munmap.  Whole pages per buffer cost a little memory, but mlock
 * works on pages and does not count: two buffers sharing a page would
 * unlock each other.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "secrets_impl.h"

void
secmem_wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n--)
        *v++ = 0;
}

static size_t
page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);

    return ps > 0 ? (size_t)ps : 4096;
}

static void *
map_pages(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    /* Best effort, both: the value is still usable without them. */
    (void)mlock(p, size);
#ifdef MADV_DONTDUMP
    (void)madvise(p, size, MADV_DONTDUMP);
#endif
    return p;
}

static void
unmap_pages(void *p, size_t size)
{
    secmem_wipe(p, size);
    (void)munlock(p, size);
    (void)munmap(p, size);
}

int
secbuf_reserve(secbuf *b, size_t extra)
{
    size_t need, cap, ps = page_size();
    unsigned char *p;

    if (extra > SIZE_MAX - b->len)
        return ENOMEM;
    need = b->len + extra;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : ps;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return ENOMEM;
        cap *= 2;
    }
    p = map_pages(cap);
    if (p == NULL)
        return ENOMEM;
    if (b->p) {
        memcpy(p, b->p, b->len);
        unmap_pages(b->p, b->cap);
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

int
secbuf_append(secbuf *b, const void *data, size_t n)
{
    int e;

    if (n == 0)
        return 0;
    if ((e = secbuf_reserve(b, n)) != 0)
        return e;
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

void
secbuf_release(secbuf *b)
{
    if (b->p)
        unmap_pages(b->p, b->cap);
    b->p = NULL;
    b->len = b->cap = 0;
}

static void
harden_once(void)
{
    struct rlimit rl = {0, 0};

    /* A core file would hold every decrypted value: none, and no
     * ptrace or /proc/PID/mem by other processes of the same user. */
    (void)setrlimit(RLIMIT_CORE, &rl);
#ifdef __linux__
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
}

void
secmem_harden(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    (void)pthread_once(&once, harden_once);
}
