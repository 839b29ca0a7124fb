/* Private to src/simt: user-space fibers for the interleaved schedule (schedule.c). A fiber is a
 * stack of its own and a saved stack pointer; a switch saves the callee-saved registers on the
 * running stack and loads them from the other one, in user space (no system call), so it costs
 * tens of nanoseconds where a hand-over between threads cost microseconds. One thread runs all
 * the fibers of a launch: nothing is concurrent. */
#ifndef MDL_SIMT_FIBER_H
#define MDL_SIMT_FIBER_H

#include <glib.h>

typedef struct SimtFiber SimtFiber;

/* A fiber's body; it returns the fiber to switch to for good when it is done (it never resumes). */
typedef SimtFiber *(*SimtFiberMain) (void *data);

struct SimtFiber {
  void *sp;                 /* the saved stack pointer while the fiber is not running */
  guint8 *map;              /* its stack's mapping, a guard page first (NULL: the thread's stack) */
  gsize map_bytes;
  SimtFiberMain main;
  void *data;
  /* For AddressSanitizer, which must be told each switch: the stack's bounds and its fake stack. */
  const void *stack_bottom;
  gsize stack_bytes;
  void *fake_stack;
  SimtFiber *resumed_by;    /* the fiber that switched to this one last */
};

/* Prepares @f to run @main (@data) from its start at the next switch to it, allocating its stack
 * the first time (kept for later starts; out of memory aborts, as g_malloc does). A zeroed
 * SimtFiber that is never started stands for the thread's own stack (the launcher). */
void mdl_simt_fiber_start (SimtFiber *f, SimtFiberMain main, void *data);
/* Suspends @from (the running fiber) and runs @to until something switches back to @from. */
void mdl_simt_fiber_switch (SimtFiber *from, SimtFiber *to);
/* Frees @f's stack (@f must not be running or suspended mid-body). */
void mdl_simt_fiber_clear (SimtFiber *f);

#endif
