"""Kernels of test_atomics.py (the interpreter, and the PTX each kernel
assembles to) and test_gpu_atomics.py (the same kernels on the GPU).

OP, SEM and SCOPE are compile-time strings: OP names the tl.atomic_*
function, SEM and SCOPE are passed on as they are."""
import tilec
import tilec.language as tl


@tilec.jit
def rmw(ptr, val_ptr, old_ptr, n, OP: tl.constexpr, SEM: tl.constexpr,
        SCOPE: tl.constexpr, RETURN_OLD: tl.constexpr, BLOCK: tl.constexpr):
    """ptr[i] = OP(ptr[i], val[i]) for i < n, one address per lane; with
    RETURN_OLD the old values go to old_ptr (grid * BLOCK of them, the
    masked-off lanes' 0 included), without it the result is unused."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(val_ptr + offs, mask=mask)
    p = ptr + offs
    if OP == "add":
        old = tl.atomic_add(p, v, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "max":
        old = tl.atomic_max(p, v, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "min":
        old = tl.atomic_min(p, v, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "and":
        old = tl.atomic_and(p, v, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "or":
        old = tl.atomic_or(p, v, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        old = tl.atomic_xor(p, v, mask=mask, sem=SEM, scope=SCOPE)
    else:
        tl.static_assert(OP == "xchg", "unknown OP")
        old = tl.atomic_xchg(p, v, mask=mask, sem=SEM, scope=SCOPE)
    if RETURN_OLD:
        tl.store(old_ptr + offs, old)


@tilec.jit
def rmw_2d(ptr, val_ptr, old_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    """A 2-D tile of atomic adds (default sem and scope), old values kept."""
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    old = tl.atomic_add(ptr + offs, tl.load(val_ptr + offs))
    tl.store(old_ptr + offs, old)


@tilec.jit
def window_add(ptr, val_ptr, old_ptr, RETURN_OLD: tl.constexpr, BLOCK: tl.constexpr):
    """Every program adds its BLOCK values val[pid * BLOCK + i] into the
    same window ptr[0:BLOCK] (consecutive, aligned: vector atomics on
    sm_90, contended across programs); with RETURN_OLD the old values go
    to old_ptr[pid * BLOCK + i]."""
    offs = tl.arange(0, BLOCK)
    v = tl.load(val_ptr + tl.program_id(0) * BLOCK + offs)
    if RETURN_OLD:
        old = tl.atomic_add(ptr + offs, v, sem="relaxed")
        tl.store(old_ptr + tl.program_id(0) * BLOCK + offs, old)
    else:
        tl.atomic_add(ptr + offs, v, sem="relaxed")


@tilec.jit
def histogram(bins_ptr, idx_ptr, old_ptr, n, RETURN_OLD: tl.constexpr,
              BLOCK: tl.constexpr):
    """bins[idx[i]] += 1 for i < n (a Python 1, converted to the bins'
    type); with RETURN_OLD each lane's old count goes to old_ptr[i]."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    if RETURN_OLD:
        old = tl.atomic_add(bins_ptr + idx, 1, mask=mask)
        tl.store(old_ptr + offs, old, mask=mask)
    else:
        tl.atomic_add(bins_ptr + idx, 1, mask=mask, sem="relaxed")


@tilec.jit
def scatter(bins_ptr, idx_ptr, val_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    """bins[idx[i]] = OP(bins[idx[i]], val[i]) for i < n, result unused,
    relaxed (`red` on the GPU where it can be)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(val_ptr + offs, mask=mask)
    if OP == "add":
        tl.atomic_add(bins_ptr + idx, v, mask=mask, sem="relaxed")
    elif OP == "max":
        tl.atomic_max(bins_ptr + idx, v, mask=mask, sem="relaxed")
    else:
        tl.static_assert(OP == "min", "unknown OP")
        tl.atomic_min(bins_ptr + idx, v, mask=mask, sem="relaxed")


@tilec.jit
def reduce_into(out_ptr, x_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    """*out = OP(*out, x[i]) for every i < n: a scalar pointer broadcast
    against a tensor of values, every lane at one address."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if OP == "add":
        tl.atomic_add(out_ptr, x, mask=mask)
    elif OP == "max":
        tl.atomic_max(out_ptr, x, mask=mask)
    else:
        tl.static_assert(OP == "min", "unknown OP")
        tl.atomic_min(out_ptr, x, mask=mask)


@tilec.jit
def ticket(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    """One scalar atomic per program; every lane of the program stores the
    ticket it got (the result broadcast to the whole tile)."""
    pid = tl.program_id(0)
    t = tl.atomic_add(counter_ptr, 1)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + pid * BLOCK + offs, t + offs * 0)


@tilec.jit
def scalar_rmw(ptr, old_ptr, OP: tl.constexpr):
    """*ptr = OP(*ptr, program_id + 1), the old value to old_ptr[pid]."""
    pid = tl.program_id(0)
    v = pid + 1
    if OP == "add":
        old = tl.atomic_add(ptr, v)
    elif OP == "max":
        old = tl.atomic_max(ptr, v)
    elif OP == "min":
        old = tl.atomic_min(ptr, v)
    elif OP == "and":
        old = tl.atomic_and(ptr, v)
    elif OP == "or":
        old = tl.atomic_or(ptr, v)
    elif OP == "xor":
        old = tl.atomic_xor(ptr, v)
    else:
        tl.static_assert(OP == "xchg", "unknown OP")
        old = tl.atomic_xchg(ptr, v)
    tl.store(old_ptr + pid, old)


@tilec.jit
def cas(ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    """ptr[i] = val[i] where ptr[i] == cmp[i] (bitwise); old values kept."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = tl.load(cmp_ptr + offs)
    v = tl.load(val_ptr + offs)
    old = tl.atomic_cas(ptr + offs, c, v)
    tl.store(old_ptr + offs, old)


@tilec.jit
def cas_ticket(counter_ptr, tickets_ptr, tries):
    """A counter incremented by compare-and-swap: each program retries
    with the value it last saw until its swap succeeds (at most `tries`
    times) and stores the value it incremented (-1 if it never did)."""
    pid = tl.program_id(0)
    guess = 0
    got = -1
    for _ in range(tries):
        if got < 0:
            seen = tl.atomic_cas(counter_ptr, guess, guess + 1)
            if seen == guess:
                got = seen
            guess = seen
    tl.store(tickets_ptr + pid, got)


@tilec.jit
def lock_counter(lock_ptr, counter_ptr, order_ptr, done_ptr, tries):
    """A spin lock: atomic_cas(lock, 0, 1) takes it (acquire), atomic_xchg
    (lock, 0) gives it back (release). Under the lock a program reads the
    counter with a plain load, writes its id at order[counter] and the
    counter + 1 with plain stores. done[pid] = 1 once it got the lock
    (within `tries` attempts)."""
    pid = tl.program_id(0)
    done = 0
    for _ in range(tries):
        if done == 0:
            if tl.atomic_cas(lock_ptr, 0, 1, sem="acquire") == 0:
                c = tl.load(counter_ptr)
                tl.store(order_ptr + c, pid)
                tl.store(counter_ptr, c + 1)
                tl.atomic_xchg(lock_ptr, 0, sem="release")
                done = 1
    tl.store(done_ptr + pid, done)
