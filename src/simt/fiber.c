/* User-space fibers (fiber.h). On x86-64 a switch is the few instructions of fiber_jump below:
 * push the callee-saved registers and the SSE/x87 control words (the System V ABI keeps them
 * across a call), store the stack pointer, load the other fiber's, pop its registers, return into
 * it. glibc's swapcontext would do the same plus a sigprocmask system call per switch, which cost
 * 4.5-5 us on the project's VM (a third of the thread hand-over it replaces); other architectures
 * use it all the same (correct, only slower; -DFIBER_UCONTEXT picks it on x86-64 too, to test it).
 *
 * A new fiber's stack is mapped with a PROT_NONE guard page below it, so an overflow faults
 * instead of writing over the next allocation. Under AddressSanitizer every switch is announced
 * (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber) so that it knows which stack
 * is running; a fiber that ends hands its fake stack back with a NULL save slot. */
#include "simt/fiber.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#ifndef FIBER_ASAN
#define FIBER_ASAN 0
#endif
#if FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* A resident block's stack: its kernel's frames and, when a batch fills, the engines' (reserved,
 * not committed: only the pages touched cost memory). */
#define FIBER_STACK_BYTES (2u << 20)

static void fiber_run (SimtFiber *f);

#if defined(__x86_64__) && !defined(FIBER_UCONTEXT)
#define FIBER_ASM 1
/* fiber_jump (save, sp): saves the running context on its stack, *save = its stack pointer; then
 * resumes the context saved at @sp. fiber_entry is where a new fiber's first switch returns to:
 * r12 holds the fiber, r13 fiber_run. */
void fiber_jump (void **save, void *sp) __asm__ ("mdl_simt_fiber_jump");
void fiber_entry (void) __asm__ ("mdl_simt_fiber_entry");
__asm__ (".text\n"
         ".p2align 4\n"
         ".globl mdl_simt_fiber_jump\n"
         ".hidden mdl_simt_fiber_jump\n"
         ".type mdl_simt_fiber_jump, @function\n"
         "mdl_simt_fiber_jump:\n"
         "  pushq %rbp\n"
         "  pushq %rbx\n"
         "  pushq %r12\n"
         "  pushq %r13\n"
         "  pushq %r14\n"
         "  pushq %r15\n"
         "  subq $8, %rsp\n"
         "  stmxcsr (%rsp)\n"
         "  fnstcw 4(%rsp)\n"
         "  movq %rsp, (%rdi)\n"
         "  movq %rsi, %rsp\n"
         "  ldmxcsr (%rsp)\n"
         "  fldcw 4(%rsp)\n"
         "  addq $8, %rsp\n"
         "  popq %r15\n"
         "  popq %r14\n"
         "  popq %r13\n"
         "  popq %r12\n"
         "  popq %rbx\n"
         "  popq %rbp\n"
         "  ret\n"
         ".size mdl_simt_fiber_jump, .-mdl_simt_fiber_jump\n"
         ".p2align 4\n"
         ".globl mdl_simt_fiber_entry\n"
         ".hidden mdl_simt_fiber_entry\n"
         ".type mdl_simt_fiber_entry, @function\n"
         "mdl_simt_fiber_entry:\n"
         "  movq %r12, %rdi\n"
         "  callq *%r13\n"
         "  ud2\n"
         ".size mdl_simt_fiber_entry, .-mdl_simt_fiber_entry\n");

/* The frame fiber_jump pops for a new fiber, from the stack pointer up: the control words (MXCSR
 * 0x1F80, x87 0x037F: what a thread starts with), r15, r14, r13, r12, rbx, rbp, the return
 * address. The return lands 16-byte aligned, so fiber_entry's call aligns fiber_run's frame as
 * the ABI wants. */
static void
prepare (SimtFiber *f)
{
  guint64 *top = (guint64 *) (f->map + f->map_bytes) - 2;
  guint64 *sp = top - 8;
  sp[0] = 0x1F80 | ((guint64) 0x037F << 32);
  sp[1] = 0;                                  /* r15 */
  sp[2] = 0;                                  /* r14 */
  sp[3] = (guint64) (guintptr) fiber_run;     /* r13 */
  sp[4] = (guint64) (guintptr) f;             /* r12 */
  sp[5] = 0;                                  /* rbx */
  sp[6] = 0;                                  /* rbp: the end of frame-pointer chains */
  sp[7] = (guint64) (guintptr) fiber_entry;
  f->sp = sp;
}

static void
jump (SimtFiber *from, SimtFiber *to)
{
  fiber_jump (&from->sp, to->sp);
}
#else
#define FIBER_ASM 0
#include <ucontext.h>

static void
entry_halves (unsigned hi, unsigned lo)
{
  fiber_run ((SimtFiber *) (((guintptr) hi << 16 << 16) | lo));
}

static void
prepare (SimtFiber *f)
{
  ucontext_t *uc = f->sp == NULL ? g_new (ucontext_t, 1) : f->sp;
  guintptr p = (guintptr) f;
  getcontext (uc);
  uc->uc_stack.ss_sp = (void *) f->stack_bottom;
  uc->uc_stack.ss_size = f->stack_bytes;
  uc->uc_link = NULL;
  makecontext (uc, (void (*) (void)) entry_halves, 2, (unsigned) (p >> 16 >> 16), (unsigned) p);
  f->sp = uc;
}

static void
jump (SimtFiber *from, SimtFiber *to)
{
  if (from->sp == NULL)
    from->sp = g_new (ucontext_t, 1);   /* the launcher's context */
  swapcontext (from->sp, to->sp);
}
#endif

/* After a switch has arrived in @f (@fake: its saved fake stack, NULL on its first run): tells
 * AddressSanitizer, and learns the bounds of the thread's own stack when it was that stack which
 * switched, since nothing else says where it lies. */
static void
arrived (SimtFiber *f, void *fake)
{
#if FIBER_ASAN
  const void *bottom;
  size_t bytes;
  __sanitizer_finish_switch_fiber (fake, &bottom, &bytes);
  if (f->resumed_by != NULL && f->resumed_by->map == NULL)
    {
      f->resumed_by->stack_bottom = bottom;
      f->resumed_by->stack_bytes = bytes;
    }
#else
  (void) f;
  (void) fake;
#endif
}

/* Before leaving @from for @to (@from == NULL: for good). */
static void
leaving (SimtFiber *from, SimtFiber *to)
{
  to->resumed_by = from;
#if FIBER_ASAN
  __sanitizer_start_switch_fiber (from != NULL ? &from->fake_stack : NULL, to->stack_bottom,
                                  to->stack_bytes);
#endif
}

static void
fiber_run (SimtFiber *f)
{
  SimtFiber *next;
  arrived (f, NULL);
  next = f->main (f->data);
  leaving (NULL, next);
  jump (f, next);
  g_assert_not_reached ();
}

void
mdl_simt_fiber_start (SimtFiber *f, SimtFiberMain main, void *data)
{
  if (f->map == NULL)
    {
      gsize page = (gsize) sysconf (_SC_PAGESIZE);
      void *m = mmap (NULL, page + FIBER_STACK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
      if (m == MAP_FAILED || mprotect (m, page, PROT_NONE) != 0)
        g_error ("simt: cannot map a block's stack of %u bytes: %s", FIBER_STACK_BYTES,
                 g_strerror (errno));
      f->map = m;
      f->map_bytes = page + FIBER_STACK_BYTES;
      f->stack_bottom = f->map + page;
      f->stack_bytes = FIBER_STACK_BYTES;
    }
#if FIBER_ASAN
  /* The frames of its last run ended without returning; their redzones must not stay poisoned. */
  ASAN_UNPOISON_MEMORY_REGION (f->stack_bottom, f->stack_bytes);
  f->fake_stack = NULL;
#endif
  f->main = main;
  f->data = data;
  prepare (f);
}

void
mdl_simt_fiber_switch (SimtFiber *from, SimtFiber *to)
{
  leaving (from, to);
  jump (from, to);
  arrived (from, from->fake_stack);
}

void
mdl_simt_fiber_clear (SimtFiber *f)
{
  if (f->map != NULL)
    munmap (f->map, f->map_bytes);
  if (!FIBER_ASM)
    g_free (f->sp);
  memset (f, 0, sizeof *f);
}
