#!/usr/bin/env python3
"""gen.py - random, valid cgp-ad kernels for the differential fuzzer (run.py).

generate(seed) builds, deterministically from random.Random(seed), one kernel
in the C++ subset of docs/user-guide.md section 5 (double, sometimes float):
pointer, scalar, in/out and integer parameters; for/while/do-while loops
nested up to depth 3 with constant and run-time bounds; if/else, switch with
fall-through and default, break, continue, early returns; helpers with
visible bodies (value-returning and void with pointer outputs) called in
loops; local scalars and 1-D/2-D arrays (1-D ones also filled by a loop);
compound assignments, ++/--,
ternaries and math functions on safe domains. Values are kept bounded
(tanh squashes, divisions by 1.5+x*x, ...) and every loop is bounded, so
each kernel terminates and stays finite.

The same syntax tree is rendered three ways: the kernel itself (marked
CGP_GRAD, for cgp-ad), a TRACE twin (not marked, other names) that mixes
every floating comparison, switch selector, float-to-int conversion and
kink of fabs/fmin/fmax/min/max/abs into a global trace so that the driver
can tell when a finite-difference step flips a discrete decision, and for
float kernels a traced twin in double (the finite-difference reference).
`python3 gen.py SEED` prints the kernel and its test case.
"""
import random
import re
import sys

GLOBAL_NAME = re.compile(r"^k\d+_[gk]$")  # constant globals of kernel kN: kN_g (array), kN_k (scalar)

# ---------------------------------------------------------------- rendering


class Ctx:
    """How to render: the floating type, traced or not, the name suffix."""

    def __init__(self, T, traced, suffix):
        self.T = T
        self.traced = traced
        self.suffix = suffix


PLAIN = Ctx("double", False, "")  # for comparing expressions by their text


def lit(v, ctx):
    s = "%.3g" % v
    if "e" in s:
        s = "%.4f" % v
    if "." not in s:
        s += ".0"
    if ctx.T == "float":
        s += "f"
    return "(%s)" % s if v < 0 else s


# Floating expressions. Each node knows a rough bound of its magnitude (mag),
# which the generator uses to keep values finite.
class Node:
    mag = 1.0


class Lit(Node):
    def __init__(self, v):
        self.v = v
        self.mag = abs(v)

    def r(self, c):
        return lit(self.v, c)


class Ref(Node):
    """A variable or an element: name, then int index nodes; deref=True: *p or *(p + k)."""

    def __init__(self, name, idx=(), mag=3.0, deref=None, glob=False):
        self.name = name
        self.glob = glob
        self.idx = list(idx)
        self.mag = mag
        self.deref = deref

    def r(self, c):
        if self.deref is not None:
            return "*%s" % self.name if self.deref == 0 else "*(%s + %d)" % (self.name, self.deref)
        glob = self.glob or GLOBAL_NAME.match(self.name)
        name = self.name + c.suffix if glob else self.name  # constant globals are renamed in twins
        return name + "".join("[%s]" % i.r(c) for i in self.idx)


class Bin(Node):
    def __init__(self, op, a, b):
        # `e - e` is zero, but the reverse sweep adds its two partials one
        # after the other: with a large adjoint (a long loop that grows it)
        # the first swallows what was there and the second leaves 0, so FD
        # and the gradient disagree while both are right. Seed 892 of
        # 300-1299. Write `e + e` instead.
        if op == "-" and a.r(PLAIN) == b.r(PLAIN):
            op = "+"
        self.op, self.a, self.b = op, a, b
        if op in "+-":
            self.mag = a.mag + b.mag
        elif op == "*":
            self.mag = a.mag * b.mag
        else:  # '/': only by denominators >= 1 (the generator makes sure)
            self.mag = a.mag

    def r(self, c):
        return "(%s %s %s)" % (self.a.r(c), self.op, self.b.r(c))


class Neg(Node):
    def __init__(self, a):
        self.a = a
        self.mag = a.mag

    def r(self, c):
        return "(-%s)" % self.a.r(c)


KINKS = {"fabs": "tr_fabs", "fmin": "tr_fmin", "fmax": "tr_fmax", "min": "tr_min", "max": "tr_max", "abs": "tr_abs"}


class Math(Node):
    """A math function; style 'std' (std::f), 'plain' (f) or 'suffix' (ff for float)."""

    def __init__(self, fn, args, style, mag):
        self.fn, self.args, self.style, self.mag = fn, args, style, mag

    def r(self, c):
        a = ", ".join(x.r(c) for x in self.args)
        if c.traced and self.fn in KINKS:
            return "%s(%s)" % (KINKS[self.fn], a)
        if self.fn in ("min", "max", "abs"):
            return "std::%s(%s)" % (self.fn, a)
        if self.style == "std":
            return "std::%s(%s)" % (self.fn, a)
        if self.style == "suffix" and c.T == "float":
            return "%sf(%s)" % (self.fn, a)
        return "%s(%s)" % (self.fn, a)


class ViaDouble(Node):
    """float kernels: static_cast<float>(std::fn(static_cast<double>(e))) (plain std::fn in double)."""

    def __init__(self, fn, a, mag):
        self.fn, self.a, self.mag = fn, a, mag

    def r(self, c):
        if c.T == "float":
            return "static_cast<float>(std::%s(static_cast<double>(%s)))" % (self.fn, self.a.r(c))
        return "std::%s(%s)" % (self.fn, self.a.r(c))


class Tern(Node):
    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b
        self.mag = max(a.mag, b.mag)

    def r(self, c):
        return "(%s ? %s : %s)" % (self.cond.r(c), self.a.r(c), self.b.r(c))


class Call(Node):
    """A call of a helper (value or void); args are nodes or PtrArg."""

    def __init__(self, name, args, mag=3.0):
        self.name, self.args, self.mag = name, args, mag

    def r(self, c):
        return "%s%s(%s)" % (self.name, c.suffix, ", ".join(a.r(c) for a in self.args))


class IntAsT(Node):
    """An int value used as a floating one: 0.25 * i, or static_cast<T>(i)."""

    def __init__(self, i, k, cast):
        self.i, self.k, self.cast = i, k, cast
        self.mag = 2.0

    def r(self, c):
        if self.cast:
            return "(%s * static_cast<%s>(%s))" % (lit(self.k, c), c.T, self.i.r(c))
        return "(%s * %s)" % (lit(self.k, c), self.i.r(c))


class PtrArg:
    """A pointer argument: 'p', 'p + k', '&a[k]', 'M[r]', '&M[r][k]'."""

    def __init__(self, text_fn):
        self.text_fn = text_fn

    def r(self, c):
        return self.text_fn(c)


# Integer expressions and conditions.
class IV:
    def __init__(self, s):
        self.s = s

    def r(self, c):
        return self.s


class IBin:
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def r(self, c):
        return "(%s %s %s)" % (self.a.r(c), self.op, self.b.r(c))


class FtoI:
    """(int)(e), traced in the twins."""

    def __init__(self, e):
        self.e = e

    def r(self, c):
        s = "static_cast<int>(%s)" % self.e.r(c)
        return "tri(%s)" % s if c.traced else s


class Cmp:
    def __init__(self, op, a, b, floating):
        self.op, self.a, self.b, self.floating = op, a, b, floating

    def r(self, c):
        s = "%s %s %s" % (self.a.r(c), self.op, self.b.r(c))
        return "trb(%s)" % s if (c.traced and self.floating) else "(%s)" % s


class Logic:
    def __init__(self, op, a, b=None):
        self.op, self.a, self.b = op, a, b

    def r(self, c):
        if self.op == "!":
            return "!%s" % self.a.r(c)
        return "(%s %s %s)" % (self.a.r(c), self.op, self.b.r(c))


# ---------------------------------------------------------------- statements


class S:
    pass


class Line(S):
    """One line built from nodes: fmt % rendered parts."""

    def __init__(self, fmt, *parts):
        self.fmt, self.parts = fmt, parts

    def lines(self, c, ind):
        vals = tuple(p.r(c) if hasattr(p, "r") else (c.T if p == "T" else p) for p in self.parts)
        return [ind + self.fmt % vals]


class Block(S):
    def __init__(self, head, body, tail="}", head_parts=(), tail_parts=()):
        self.head, self.body, self.tail = head, body, tail
        self.head_parts, self.tail_parts = head_parts, tail_parts

    def lines(self, c, ind):
        out = Line(self.head, *self.head_parts).lines(c, ind)
        for s in self.body:
            out += s.lines(c, ind + "  ")
        out += Line(self.tail, *self.tail_parts).lines(c, ind)
        return out


class If(S):
    def __init__(self, cond, then, els=None):
        self.cond, self.then, self.els = cond, then, els

    def lines(self, c, ind):
        out = [ind + "if (%s) {" % strip_parens(self.cond.r(c))]
        for s in self.then:
            out += s.lines(c, ind + "  ")
        if self.els:
            if len(self.els) == 1 and isinstance(self.els[0], If):
                sub = self.els[0].lines(c, ind)
                out.append(ind + "} else " + sub[0].lstrip())
                return out + sub[1:]
            out.append(ind + "} else {")
            for s in self.els:
                out += s.lines(c, ind + "  ")
        out.append(ind + "}")
        return out


class Switch(S):
    def __init__(self, sel, cases):
        self.sel = sel  # int node
        self.cases = cases  # list of (labels, stmts, ending) ; label None = default

    def lines(self, c, ind):
        sel = self.sel.r(c)
        if c.traced and not sel.startswith("tri("):
            sel = "tri(%s)" % sel
        out = [ind + "switch (%s) {" % strip_parens(sel)]
        for labels, body, ending in self.cases:
            for l in labels:
                out.append(ind + "  " + ("default:" if l is None else "case %d:" % l))
            inner = []
            for s in body:
                inner += s.lines(c, ind + "    ")
            if any(isinstance(s, Decl) for s in body):
                inner = [ind + "    {"] + ["  " + l for l in inner] + [ind + "    }"]
            out += inner
            if ending:
                out.append(ind + "    " + ending)
        out.append(ind + "}")
        return out


class Decl(Line):
    pass


def strip_parens(s):
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for k, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k != len(s) - 1:
                return s
        return s[1:-1]
    return s


# ---------------------------------------------------------------- scope


class FArr:
    """A floating array: name, dims (ints, or a symbol such as 'm' in helpers), writable, how to pass it."""

    def __init__(self, name, dims, writable, pointer, glob=False):
        self.name, self.dims, self.writable, self.pointer = name, dims, writable, pointer
        self.glob = glob


class IVar:
    def __init__(self, name, lo, hi, sym=None, writable=False):
        self.name, self.lo, self.hi, self.sym, self.writable = name, lo, hi, sym, writable


class Scope:
    def __init__(self, parent=None):
        if parent is None:
            self.fs, self.arrs, self.ints = [], [], []
            self.loop = 0  # loop depth
            self.level = 0
        else:
            self.fs, self.arrs, self.ints = list(parent.fs), list(parent.arrs), list(parent.ints)
            self.bools = list(getattr(parent, "bools", []))
            self.loop = parent.loop
            self.level = parent.level + 1


class Helper:
    def __init__(self, name, kind, params):
        self.name, self.kind, self.params = name, kind, params


# ---------------------------------------------------------------- the generator

# Known cgp-ad bugs (tests/fuzz/regressions/NNN_*.cpp) whose patterns the generator
# steers clear of, so that they do not hide other bugs; run.py --no-avoid keeps them.
AVOID = set()  # patterns of known, unfixed bugs kept out of the kernels (none now)

FMAX = 6.0  # magnitude above which an expression is squashed
VMAG = 3.0  # assumed magnitude of variables


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        r = self.r
        self.T = "float" if r.random() < 0.2 else "double"
        self.name = "k%d" % seed
        self.counter = 0
        self.helpers = []  # Helper, in definition order
        self.helper_funcs = []  # (signature parts, body stmts) for rendering
        self.budget = 0
        self.fn_ret = None  # 'T' or 'void' of the function being generated
        self.max_loop = 3
        self.in_helper = False
        self.level_of = {}  # name -> nesting level of its declaration
        self.bools = []
        self.long_loops = 0
        self.globals = []  # (name, values, is_array) of constant globals
        self.global_names = set()

    # -- small utilities
    def fresh(self, base):
        self.counter += 1
        return "%s%d" % (base, self.counter)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def wpick(self, items):
        """items: list of (weight, value)."""
        tot = sum(w for w, _ in items)
        x = self.r.random() * tot
        for w, v in items:
            x -= w
            if x < 0:
                return v
        return items[-1][1]

    def const(self, lo, hi):
        return round(self.r.uniform(lo, hi), 2) or 0.5

    def style(self):
        if self.T == "float":
            return self.pick(["std", "std", "suffix"])
        return self.pick(["std", "std", "plain"])

    # -- integer indices
    def index_into(self, scope, dim):
        """An int node i with 0 <= i < dim (dim an int or a symbol)."""
        r = self.r
        cands = []
        for v in scope.ints:
            if v.lo < 0:
                continue
            if isinstance(dim, int) and v.hi < dim:
                cands.append(IV(v.name))
                if v.name.startswith("i"):  # loop variables: index by them more often
                    cands += [IV(v.name)] * 2
                if v.hi < dim and dim - 1 - v.hi >= 0 and self.chance(0.3):
                    cands.append(IBin("-", IV(str(dim - 1)), IV(v.name)))
            elif isinstance(dim, str) and v.sym == dim:
                cands.append(IV(v.name))
        if isinstance(dim, int):
            for a in scope.ints:
                for b in scope.ints:
                    if a is not b and a.lo >= 0 and b.lo >= 0 and a.hi + b.hi < dim and self.chance(0.2):
                        cands.append(IBin("+", IV(a.name), IV(b.name)))
        if cands and r.random() < 0.75:
            return self.pick(cands)
        nonneg = [v for v in scope.ints if v.lo >= 0]
        loopv = [v for v in nonneg if v.name.startswith("i")]
        if loopv and r.random() < 0.6:
            nonneg = loopv
        if nonneg and r.random() < 0.7:
            v = self.pick(nonneg)
            e = IV(v.name)
            if self.chance(0.4):
                e = IBin("+", e, IV(str(r.randint(1, 3))))
            elif self.chance(0.3) and len(nonneg) > 1:
                e = IBin("+", IBin("*", IV(self.pick(nonneg).name), IV(str(r.randint(2, 3)))), e)
            return IBin("%", e, IV(str(dim)))
        if isinstance(dim, int):
            return IV(str(r.randrange(dim)))
        return IV("0")

    def int_expr(self, scope):
        nonneg = [v for v in scope.ints if v.lo >= 0]
        if nonneg and self.chance(0.8):
            v = self.pick(nonneg)
            k = self.r.random()
            if k < 0.4:
                return IBin("%", IV(v.name), IV(str(self.r.randint(2, 4))))
            if k < 0.5:
                return IBin("&", IV(v.name), IV(str(self.r.randint(1, 3))))
            if k < 0.55:
                return IBin(">>", IV(v.name), IV("1"))
            return IV(v.name)
        return IV(str(self.r.randint(0, 4)))

    # -- floating expressions
    def leaf(self, scope):
        r = self.r
        opts = []
        nf = len(scope.fs)
        for k, v in enumerate(scope.fs):
            opts.append((6 if k >= nf - 2 else 2, ("f", v)))  # recent locals are read more
        for a in scope.arrs:
            opts.append((3 if a.pointer else 2, ("a", a)))
        if scope.ints:
            opts.append((1, ("i", None)))
        opts.append((1, ("lit", None)))
        kind, v = self.wpick(opts)
        if kind == "f":
            return Ref(v[0], mag=v[1], glob=v[0] in self.global_names)
        if kind == "a":
            if a_is_scalar_ptr(v) and self.chance(0.5):
                return Ref(v.name, deref=0)
            if v.pointer and isinstance(v.dims[0], int) and v.dims[0] > 1 and self.chance(0.1):
                return Ref(v.name, deref=r.randrange(v.dims[0]))
            return Ref(v.name, [self.index_into(scope, d) for d in v.dims], mag=VMAG, glob=v.glob)
        if kind == "i":
            iv = self.pick(scope.ints)
            i = IV(iv.name) if iv.hi <= 50 else IBin("%", IV(iv.name), IV("5"))  # counters grow
            return IntAsT(i, self.const(0.05, 0.4), self.chance(0.3))
        return Lit(self.const(-2, 2))

    def small(self, scope, e):
        """e if it is small enough to repeat (x*x), else a fresh leaf."""
        return e if is_small(e) and not is_const(e) else self.var_leaf(scope)

    def squash(self, e):
        if e.mag <= FMAX:
            return e
        k = self.r.random()
        if k < 0.5 or not is_small(e):
            return Math("tanh", [e], self.style(), 1.0)
        if k < 0.75:
            return Bin("/", e, Bin("+", Lit(1.5), Bin("*", e, e)))  # |e/(1.5+e^2)| < 0.41
        return Math("atan", [e], self.style(), 1.6)

    def fexpr(self, scope, depth):
        e = self.fexpr_raw(scope, depth)
        if is_const(e):
            # no expression of literals only: the compiler folds math calls on constants (correctly
            # rounded) in one translation unit and calls libm in another, 1 ulp apart
            e = Bin("+", e, self.var_leaf(scope))
        return self.squash(e)

    def var_leaf(self, scope):
        """A leaf that reads a variable or an element, not a literal."""
        for _ in range(8):
            e = self.leaf(scope)
            if isinstance(e, Ref):
                return e
        if scope.fs:
            return Ref(scope.fs[0][0])
        return e

    def fexpr_raw(self, scope, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(scope)
        d = depth - 1
        st = self.style()
        k = self.wpick([
            (6, "add"), (3, "sub"), (5, "mul"), (3, "div"), (2, "neg"), (10, "math"), (2, "tern"),
            (3 if self.value_helpers() else 0, "call"), (1 if self.T == "float" else 0, "viadouble")])
        if k == "add":
            return Bin("+", self.fexpr(scope, d), self.fexpr(scope, d))
        if k == "sub":
            return Bin("-", self.fexpr(scope, d), self.fexpr(scope, d))
        if k == "mul":
            if self.chance(0.5):
                return Bin("*", Lit(self.const(-1.5, 1.5)), self.fexpr(scope, d))
            return Bin("*", self.fexpr(scope, d), self.fexpr(scope, d))
        if k == "div":
            a, b = self.fexpr(scope, d), self.small(scope, self.fexpr(scope, d))
            return Bin("/", a, Bin("+", Lit(self.const(1.1, 2.5)), Bin("*", b, b)))
        if k == "neg":
            return Neg(self.fexpr(scope, d))
        if k == "tern":
            return Tern(self.cond(scope), self.fexpr(scope, d), self.fexpr(scope, d))
        if k == "call":
            return self.value_call(scope, d)
        if k == "viadouble":
            fn = self.pick(["sin", "tanh", "atan", "cos"])
            return ViaDouble(fn, self.fexpr(scope, d), 1.6)
        return self.math(scope, d, st)

    def math(self, scope, d, st):
        r = self.r
        a = self.fexpr(scope, d)
        M = lambda fn, args, mag: Math(fn, args, st, mag)
        sq = lambda e: (lambda s: Bin("*", s, s))(self.small(scope, e))
        k = self.pick([
            "tanh", "sin", "cos", "atan", "exp_t", "exp_g", "log_1", "log1p", "sqrt", "pow_b", "pow_i", "fabs",
            "fmin", "fmax", "minmax", "abs", "hypot", "atan2", "cbrt", "expm1", "tan", "exp_s"])
        if k in ("tanh", "sin", "cos", "atan"):
            return M(k, [a], 1.6)
        if k == "exp_t":
            return M("exp", [M("tanh", [a], 1.0)], 2.8)
        if k == "exp_g":
            return M("exp", [Neg(sq(a))], 1.0)
        if k == "exp_s":
            return M("exp", [Bin("*", Lit(0.5), M("sin", [a], 1.0))], 1.7)
        if k == "log_1":
            return M("log", [Bin("+", Lit(self.const(1.0, 2.0)), sq(a))], 1 + 2 * (a.mag > 1) * (a.mag ** 0.5))
        if k == "log1p":
            return M("log1p", [sq(a)], 1 + 2 * (a.mag > 1) * (a.mag ** 0.5))
        if k == "sqrt":
            return M("sqrt", [Bin("+", Lit(self.const(0.5, 2.0)), sq(a))], 1.5 + a.mag)
        if k == "pow_b":
            base = Bin("+", Lit(self.const(1.2, 2.0)), M("sin", [a], 1.0))
            ex = self.fexpr(scope, 0)
            ex = M("tanh", [ex], 1.0) if self.chance(0.5) else Lit(self.const(0.3, 2.5))
            return M("pow", [base, ex], 9.0)
        if k == "pow_i":
            ex = self.pick([Lit(2.0), Lit(3.0)] + ([IV("2"), IV("3")] if self.T == "double" else []))
            b = M("tanh", [a], 1.0) if a.mag > 2 else a
            return M("pow", [b, ex], b.mag ** 3)
        if k == "fabs":
            return M("fabs", [a], a.mag)
        if k in ("fmin", "fmax"):
            b = self.fexpr(scope, d)
            return M(k, [a, b], max(a.mag, b.mag))
        if k == "minmax":
            b = self.fexpr(scope, d)
            return M(self.pick(["min", "max"]), [a, b], max(a.mag, b.mag))
        if k == "abs":
            return M("abs", [a], a.mag)
        if k == "hypot":
            b = self.fexpr(scope, d)
            return M("hypot", [a, Bin("+", Lit(self.const(0.3, 1.0)), sq(b))], a.mag + 1 + b.mag ** 2)
        if k == "atan2":
            b = self.fexpr(scope, d)
            if self.chance(0.5):
                return M("atan2", [a, Bin("+", Lit(self.const(1.1, 2.0)), sq(b))], 1.6)
            return M("atan2", [Bin("+", Lit(self.const(1.1, 2.0)), sq(b)), a], 1.6)
        if k == "cbrt":
            return M("cbrt", [Bin("+", Lit(self.const(1.5, 2.5)), M("tanh", [a], 1.0))], 1.5)
        if k == "expm1":
            return M("expm1", [M("tanh", [a], 1.0)], 1.8)
        if k == "tan":
            return M("tan", [Bin("*", Lit(self.const(0.3, 1.2)), M("tanh", [a], 1.0))], 2.6)
        raise AssertionError(k)

    def cond(self, scope):
        r = self.r
        k = r.random()
        if k < 0.6 or not scope.ints:
            a = self.fexpr(scope, r.randint(0, 1))
            if self.chance(0.6):
                b = Lit(self.const(-1.0, 1.0))
            else:
                b = self.fexpr(scope, 0)
            c = Cmp(self.pick(["<", ">", "<=", ">="]), a, b, True)
        else:
            i = self.pick(scope.ints)
            kk = r.random()
            if kk < 0.4:
                c = Cmp(self.pick(["==", "!="]), IBin("%", IV(i.name), IV(str(r.randint(2, 3)))), IV("0"), False)
            elif kk < 0.7 and len(scope.ints) > 1:
                j = self.pick([v for v in scope.ints if v is not i])
                c = Cmp(self.pick(["<", ">", "==", "<="]), IV(i.name), IV(j.name), False)
            else:
                c = Cmp(self.pick(["<", ">", "==", ">="]), IV(i.name), IV(str(r.randint(0, 4))), False)
        bl = getattr(scope, "bools", [])
        if bl and self.chance(0.2):
            c = IV(self.pick(bl)) if self.chance(0.7) else Logic("!", IV(self.pick(bl)))
        if self.chance(0.2):
            c = Logic(self.pick(["&&", "||"]), c, self.cond_simple(scope))
        elif self.chance(0.07):
            c = Logic("!", c)
        return c

    def cond_simple(self, scope):
        return Cmp(self.pick(["<", ">"]), self.leaf(scope), Lit(self.const(-1, 1)), True)

    # -- targets of assignments
    def target(self, scope):
        opts = []
        for v in scope.fs:
            if v[2]:
                opts.append((6 if self.level_of.get(v[0], 0) == 0 else 2, ("f", v)))  # outer ones reach the result
        for a in scope.arrs:
            if a.writable:
                opts.append((5 if self.level_of.get(a.name, 0) == 0 else 2, ("a", a)))
        if not opts:
            return None
        kind, v = self.wpick(opts)
        if kind == "f":
            return Ref(v[0])
        if a_is_scalar_ptr(v) and self.chance(0.6):
            return Ref(v.name, deref=0)
        return Ref(v.name, [self.index_into(scope, d) for d in v.dims])

    # -- statements
    def block(self, scope, n):
        out = []
        for _ in range(n):
            if self.budget <= 0:
                break
            out += self.stmt(scope)
        return out

    def stmt(self, scope):
        r = self.r
        self.budget -= 1
        has_target = self.target(scope) is not None
        counters = [v for v in scope.ints if v.writable]
        w = [
            (10 if scope.level < 2 else 4, "decl"), (3 if not self.in_helper else 1, "arr"),
            (14 if has_target else 0, "assign"), (18 if has_target else 0, "compound"),
            (3, "incdec"), (10, "if"), (11 if scope.loop < self.max_loop and self.budget > 2 else 0, "loop"),
            (5 if self.budget > 2 else 0, "switch"),
            (6 if scope.loop else 0, "brk"), (4 if scope.loop else 0, "ret"),
            (7 if self.void_helpers() and not self.in_helper else 0, "vcall"),
            (5 if self.out_helpers() and not self.in_helper and has_target else 0, "ocall"),
            (2 if counters and has_target else 0, "bufpush"),
            (1 if scope.fs else 0, "void"),
        ]
        k = self.wpick(w)
        return getattr(self, "st_" + k)(scope)

    def st_decl(self, scope):
        r = self.r
        if self.chance(0.08) and not self.in_helper:
            name = self.fresh("b")
            c = self.cond(scope)  # before the name is in scope: no 'bool b = b;'
            self.bools.append(name)
            scope.bools = getattr(scope, "bools", []) + [name]
            return [Decl("bool %s = %s;", name, c)]
        if self.chance(0.2):
            name = self.fresh("q")
            if self.chance(0.5):
                e = FtoI(Bin("+", Lit(self.const(2.1, 2.9)), Bin("*", Lit(2.0), Math("tanh", [self.fexpr(scope, 1)], "std", 1))))
                scope.ints.append(IVar(name, 0, 4, writable=False))
                return [Decl("int %s = %s;", name, e)]
            scope.ints.append(IVar(name, 0, 10 ** 6, writable=True))
            return [Decl("int %s = %s;", name, IV(str(r.randint(0, 2))))]
        name = self.fresh("t")
        e = self.fexpr(scope, r.randint(1, 3))
        e = self.squash_to(e, VMAG)
        prev = [f for f in scope.fs if f[2]]
        scope.fs.append((name, VMAG, True))
        self.level_of[name] = scope.level
        out = [Decl("%s %s = %s;", "T", name, e)]
        if prev and self.counter % 3 == 0:
            # A cheap value computed from this one and an earlier local (no
            # random draw): later reads of it make chains the default plan
            # may recompute link by link (`u = 0.5 * t + s` with t
            # recomputed too).
            u = self.fresh("u")
            p = prev[-1]
            out.append(Decl("%s %s = 0.5 * %s + %s;", "T", u, Ref(name, mag=VMAG), Ref(p[0], mag=p[1])))
            scope.fs.append((u, VMAG, True))
            self.level_of[u] = scope.level
        return out

    def squash_to(self, e, m):
        if e.mag <= m:
            return e
        if self.chance(0.6) or not is_small(e):
            return Math("tanh", [e], self.style(), 1.0)
        return Bin("/", e, Bin("+", Lit(1.5), Bin("*", e, e)))

    def st_arr(self, scope):
        r = self.r
        if self.chance(0.6):
            n = r.randint(2, 6)
            name = self.fresh("a")
            init = self.init_list(scope, n)
            scope.arrs.append(FArr(name, [n], True, False))
            self.level_of[name] = scope.level
            if not init.items:
                # Instead of `= {}`, a loop that fills it (no random draw, so
                # the rest of the seed's kernel stays as it was): an array the
                # default plan may fill again in the reverse sweep instead of
                # taping it, when nothing else writes it.
                i = self.fresh("f")
                e = IntAsT(IV(i), 0.25, False)
                if scope.fs:
                    e = Bin("+", e, Ref(scope.fs[0][0], mag=scope.fs[0][1]))
                e = Math("tanh", [e], "std", 1.0)
                out = [Decl("%s %s[%d];", "T", name, n),
                       Block("for (int %s = 0; %s < %d; ++%s) {", [Line("%s[%s] = %s;", name, i, e)],
                             "}", (i, i, n, i))]
                # and a use whose reverse reads two of its elements
                if scope.fs and scope.fs[-1][2]:
                    t = scope.fs[-1][0]
                    out.append(Line("%s = std::tanh(%s + %s[0] * %s[%d]);", t, t, name, name, n - 1))
                return out
            return [Decl("%s %s[%d] = {%s};", "T", name, n, init)]
        R, C = r.randint(2, 3), r.randint(2, 4)
        name = self.fresh("M")
        if self.chance(0.5):
            parts = []
            for _ in range(r.randint(1, R)):
                parts.append(InitList([self.squash_to(self.fexpr(scope, 1), VMAG) for _ in range(r.randint(1, C))]))
            init = RowList(parts)
        else:
            init = InitList([])
        scope.arrs.append(FArr(name, [R, C], True, False))
        self.level_of[name] = scope.level
        return [Decl("%s %s[%d][%d] = {%s};", "T", name, R, C, init)]

    def init_list(self, scope, n):
        k = self.r.randint(0, n)
        return InitList([self.squash_to(self.fexpr(scope, self.r.randint(0, 1)), VMAG) for _ in range(k)])

    def rhs(self, scope, op):
        r = self.r
        if op == "=":
            return self.squash_to(self.fexpr(scope, r.randint(1, 3)), VMAG)
        if op in ("+=", "-="):
            e = self.fexpr(scope, r.randint(0, 2))
            if e.mag > 1.0:
                e = Bin("*", Lit(self.const(0.1, 0.5)), Math("tanh", [e], self.style(), 1.0))
            return e
        if op == "*=":
            k = r.random()
            if k < 0.4:
                return Lit(self.const(0.5, 1.05))
            return Bin("+", Lit(self.const(0.7, 0.9)), Bin("*", Lit(0.1), Math(self.pick(["tanh", "sin", "cos"]), [self.fexpr(scope, 1)], self.style(), 1.0)))
        # '/='
        k = r.random()
        if k < 0.3:
            return Lit(self.const(1.1, 2.0))
        e = self.fexpr(scope, r.randint(0, 1))
        if k < 0.7:
            e = self.small(scope, e)
            return Bin("+", Lit(self.const(1.1, 2.0)), Bin("*", e, e))
        return Bin("+", Lit(self.const(2.0, 3.0)), Math("sin", [e], self.style(), 1.0))

    def st_assign(self, scope):
        t = self.target(scope)
        if t is None:
            return self.st_decl(scope)
        # known bug 003: a scalar that a loop overwrites without reading it first
        in_loop_scalar = scope.loop > 0 and not t.idx and t.deref is None
        if self.chance(0.5) or ("003" in AVOID and in_loop_scalar):  # a recurrence: the new value depends on the old one
            e = Bin(self.pick(["+", "*", "-"]), t, self.fexpr(scope, self.r.randint(0, 2)))
            return [Line("%s = %s;", t, self.squash_to(e, VMAG))]
        return [Line("%s = %s;", t, self.rhs(scope, "="))]

    def st_compound(self, scope):
        t = self.target(scope)
        op = self.wpick([(4, "+="), (2, "-="), (2, "*="), (2, "/=")])
        return [Line("%s %s %s;", t, op, self.rhs(scope, op))]

    def st_incdec(self, scope):
        counters = [v for v in scope.ints if v.writable]
        fl = [v for v in scope.fs if v[2]]
        if counters and (not fl or self.chance(0.6)):
            v = self.pick(counters)
            if self.chance(0.3):
                return [Line("%s %s %d;", v.name, self.pick(["+=", "%="]), self.r.randint(2, 5))]
            return [Line(self.pick(["%s++;", "++%s;"]), v.name)]
        if fl:
            v = self.pick(fl)
            return [Line(self.pick(["%s++;", "++%s;", "%s--;", "--%s;"]), v[0])]
        return self.st_decl(scope)

    def st_void(self, scope):
        return [Line("(void)%s;", Ref(self.pick(scope.fs)[0]))]

    def st_bufpush(self, scope):
        counters = [v for v in scope.ints if v.writable]
        v = self.pick(counters)
        arrs = [a for a in scope.arrs if a.writable and len(a.dims) == 1 and isinstance(a.dims[0], int)]
        if not arrs:
            return self.st_assign(scope)
        a = self.pick(arrs)
        return [Line("%s[%s++ %% %d] = %s;", a.name, v.name, a.dims[0], self.rhs(scope, "="))]

    def st_if(self, scope):
        r = self.r
        c = self.cond(scope)
        then = self.block(Scope(scope), r.randint(1, 3))
        els = None
        k = r.random()
        if k < 0.3:
            els = self.block(Scope(scope), r.randint(1, 2))
        elif k < 0.4:
            els = self.st_if(scope)
        if not then:
            then = [self.safe_assign(scope)]
        return [If(c, then, els)]

    def safe_assign(self, scope):
        t = self.target(scope)
        if t is None:
            name = self.fresh("t")
            return Decl("%s %s = %s;", "T", name, self.leaf(scope))
        return Line("%s += %s;", t, Lit(self.const(0.1, 0.5)))

    def st_loop(self, scope, force=None):
        r = self.r
        inner = Scope(scope)
        inner.loop += 1
        long_ok = scope.loop == 0 and not self.in_helper and not self.long_loops
        kind = self.wpick([(5, "for_c"), (4, "for_n"), (2, "for_back"), (1, "for_step"), (2, "for_tri"),
                           (3, "while"), (2, "do"), (1, "forever"), (4 if long_ok else 0, "for_long")])
        if force:
            kind = force
        nvars = [v for v in scope.ints if v.name in self.runtime_bounds]
        loopvars = [v for v in scope.ints if v.name.startswith("i") and v.lo >= 0]
        if kind == "for_n" and not nvars:
            kind = "for_c"
        if kind == "for_tri" and not loopvars:
            kind = "for_c"
        i = self.fresh("i")
        K = r.randint(1, 4) if scope.loop < 2 else r.randint(1, 3)
        nb = max(1, 6 - 2 * scope.loop)
        if kind == "for_long":
            # a long outer loop: its tape outgrows the 2 KiB run-time budget (loop checkpointing)
            self.long_loops += 1
            K = r.randint(24, 160)
            nv = [v for v in scope.ints if v.name == "n" and v.hi > 0]
            if nv and self.chance(0.5):
                q = max(1, K // 4)
                bound = IBin("*", IV("n"), IV(str(q)))
                hi = nv[0].hi * q - 1
            else:
                bound, hi = IV(str(K)), K - 1
            inner.ints.append(IVar(i, 0, hi))
            # nonlinear recurrences on outer scalars: each iteration tapes them
            state = [v for v in scope.fs if v[2] and self.level_of.get(v[0], 0) == scope.level]
            pre = []
            for v in self.r.sample(state, min(len(state), r.randint(1, 3))):
                # contractive (gain < 1): a chaotic recurrence has huge adjoints that cancel in
                # floating point and finite differences that mean nothing
                drive = Bin("*", Lit(self.const(0.2, 0.35)), Math("tanh", [self.fexpr(inner, 1)], self.style(), 1.0))
                e = Bin("+", Bin("*", Lit(self.const(0.3, 0.6)), Ref(v[0])), drive)
                pre.append(Line("%s = %s;", v[0], Math(self.pick(["tanh", "sin", "atan"]), [e], self.style(), 1.6)))
            body = pre + self.block(inner, r.randint(2, nb))
            return [Block("for (int %s = 0; %s; ++%s) {", body, "}", (i, Cmp("<", IV(i), bound, False), i))]
        if kind == "for_c":
            inner.ints.append(IVar(i, 0, K - 1))
            body = self.block(inner, r.randint(1, nb))
            ty = self.pick(["int"] * 5 + ["unsigned", "std::size_t"])
            return [Block("for (%s %s = 0; %s; ++%s) {", body, "}", (ty, i, Cmp("<", IV(i), IV(str(K)), False), i))]
        if kind == "for_n":
            nv = self.pick(nvars)
            sym = nv.name if self.in_helper else None
            inner.ints.append(IVar(i, 0, nv.hi - 1, sym=sym))
            body = self.block(inner, r.randint(1, nb))
            return [Block("for (int %s = 0; %s; ++%s) {", body, "}", (i, Cmp("<", IV(i), IV(nv.name), False), i))]
        if kind == "for_back":
            inner.ints.append(IVar(i, 0, K))
            body = self.block(inner, r.randint(1, nb))
            return [Block("for (int %s = %d; %s; --%s) {", body, "}", (i, K, Cmp(">=", IV(i), IV("0"), False), i))]
        if kind == "for_step":
            hi = 2 * K + 1
            inner.ints.append(IVar(i, 0, hi))
            body = self.block(inner, r.randint(1, nb))
            return [Block("for (int %s = 0; %s; %s += 2) {", body, "}", (i, Cmp("<=", IV(i), IV(str(hi)), False), i))]
        if kind == "for_tri":
            o = self.pick(loopvars)
            hi = max(o.hi, K - 1)
            inner.ints.append(IVar(i, 0, hi))
            body = self.block(inner, r.randint(1, nb))
            if self.chance(0.5):
                return [Block("for (int %s = %s; %s; ++%s) {", body, "}", (i, o.name, Cmp("<", IV(i), IV(str(hi + 1)), False), i))]
            return [Block("for (int %s = 0; %s; ++%s) {", body, "}", (i, Cmp("<=", IV(i), IV(o.name), False), i))]
        # while / do / forever: a counter incremented first, so that continue is safe
        inner.ints.append(IVar(i, 1, K))
        fcond = None
        if self.chance(0.5):
            fcond = self.cond(scope)
        body = self.block(inner, r.randint(1, nb))
        inc = Line(self.pick(["++%s;", "%s++;", "%s += 1;"]), i)
        bound = Cmp("<", IV(i), IV(str(K)), False)
        c = bound if fcond is None else Logic("&&", bound, fcond)
        if kind == "while":
            return [Decl("int %s = 0;", i), Block("while (%s) {", [inc] + body, "}", (c,))]
        if kind == "do":
            return [Decl("int %s = 0;", i), Block("do {", [inc] + body, "} while (%s);", (), (c,))]
        brk = If(Logic("!", c) if fcond is not None else Cmp(">=", IV(i), IV(str(K)), False), [Line("break;")])
        return [Decl("int %s = 0;", i), Block("for (;;) {", [brk, inc] + body, "}")]

    def st_switch(self, scope):
        r = self.r
        k = r.random()
        ncase = r.randint(2, 4)
        if k < 0.35:
            sel = FtoI(Bin("+", Lit(self.const(1.6, 2.4)), Bin("*", Lit(2.0), Math("tanh", [self.fexpr(scope, 1)], self.style(), 1))))
        elif k < 0.5 and self.sel_param:
            sel = IV("%s[%s]" % (self.sel_param.name, self.index_into(scope, self.sel_param.dims[0]).r(None)))
        else:
            sel = self.int_expr(scope)
            if isinstance(sel, IV) and sel.s.isdigit():
                sel = IBin("%", IV(str(r.randint(0, 7))), IV("4"))
        labels = list(range(0, 5))
        r.shuffle(labels)
        used = sorted(labels[:ncase])
        cases = []
        inner = Scope(scope)
        groups = []
        for l in used:
            if groups and self.chance(0.2):
                groups[-1].append(l)
            else:
                groups.append([l])
        has_default = self.chance(0.7)
        if has_default:
            pos = len(groups) if self.chance(0.7) else r.randrange(len(groups) + 1)
            groups.insert(pos, [None])
        for gi, g in enumerate(groups):
            body = self.block(Scope(inner), r.randint(1, 2))
            last = gi == len(groups) - 1
            if last:
                ending = self.pick(["break;", ""])
            else:
                ending = self.wpick([(5, "break;"), (4, "[[fallthrough]];"), (1 if scope.loop else 0, "continue;")])
            if not body and ending in ("[[fallthrough]];", ""):
                ending = "break;"  # a label needs a statement; fall-through needs one to fall from
            cases.append((g, body, ending))
        return [Switch(sel, cases)]

    def st_brk(self, scope):
        c = self.cond(scope)
        what = "continue;" if self.chance(0.4) else "break;"
        if self.chance(0.3):
            pre = self.block(Scope(scope), 1)
            return [If(c, pre + [Line(what)])]
        return [If(c, [Line(what)])]

    def st_ret(self, scope):
        c = self.cond(scope)
        if self.fn_ret == "void":
            return [If(c, [Line("return;")])]
        return [If(c, [Line("return %s;", self.ret_expr(scope))])]

    def ret_expr(self, scope):
        terms = []
        locs = [v for v in scope.fs]
        for _ in range(self.r.randint(1, 3)):
            if locs and self.chance(0.6):
                v = self.pick(locs)
                terms.append(Ref(v[0], mag=v[1]))
            else:
                terms.append(self.fexpr(scope, 1))
        e = terms[0]
        for t in terms[1:]:
            e = Bin(self.pick(["+", "-"]), e, t)
        return e

    def final_expr(self, scope):
        """The result: a combination of the outermost locals and arrays, so that most of the body matters."""
        terms = [Ref(v[0]) for v in scope.fs if self.level_of.get(v[0], 0) == 0][-6:]
        for a in scope.arrs:
            if not a.pointer and self.level_of.get(a.name, 0) == 0:
                terms.append(Ref(a.name, [IV(str(self.r.randrange(d))) for d in a.dims]))
        terms.append(self.fexpr(scope, 1))
        self.r.shuffle(terms)
        e = terms[0]
        for t in terms[1:]:
            if self.chance(0.3):
                t = Bin("*", Lit(self.const(0.2, 1.5)), t)
            e = Bin(self.pick(["+", "+", "-"]), e, t)
        return e

    # -- helpers
    def value_helpers(self):
        return [h for h in self.helpers if h.kind == "value"]

    def out_helpers(self):
        return [h for h in self.helpers if h.kind == "value_out"]

    def void_helpers(self):
        return [h for h in self.helpers if h.kind == "void"]

    def ptr_source(self, scope, need, writable, avoid=()):
        """A pointer argument with at least `need` elements from an array in scope."""
        opts = []
        for a in scope.arrs:
            if a.name in avoid or (writable and not a.writable):
                continue
            if not all(isinstance(d, int) for d in a.dims):
                continue
            if len(a.dims) == 1 and a.dims[0] >= need:
                opts.append(a)
            elif len(a.dims) == 2 and a.dims[1] >= need:
                opts.append(a)
        if not opts:
            return None, None
        a = self.pick(opts)
        r = self.r
        if len(a.dims) == 1:
            room = a.dims[0] - need
            off = None
            # an offset by a loop variable when it fits
            ivs = [v for v in scope.ints if v.lo >= 0 and v.hi <= room]
            if ivs and self.chance(0.4):
                off = IV(self.pick(ivs).name)
            elif room > 0 and self.chance(0.6):
                off = IV(str(r.randint(0, room)))
            sfx = a.glob  # constant globals are renamed in the twins
            if off is None:
                return PtrArg(lambda c, n=a.name: n + (c.suffix if sfx else "")), a.name
            # '&a[k]' or 'a + k'; known bug 002: '&a[k]' of a const parameter or global is refused
            amp = not (a.pointer or a.glob) or (self.chance(0.3) and not ("002" in AVOID and not a.writable))
            if amp:
                return PtrArg(lambda c, n=a.name, o=off: "&%s%s[%s]" % (n, c.suffix if sfx else "", o.r(c))), a.name
            return PtrArg(lambda c, n=a.name, o=off: "%s%s + %s" % (n, c.suffix if sfx else "", o.r(c))), a.name
        row = self.index_into(scope, a.dims[0])
        room = a.dims[1] - need
        if room > 0 and self.chance(0.4):
            o = r.randint(0, room)
            return PtrArg(lambda c, n=a.name, rw=row, o=o: "&%s[%s][%d]" % (n, rw.r(c), o)), a.name
        return PtrArg(lambda c, n=a.name, rw=row: "%s[%s]" % (n, rw.r(c))), a.name

    def call_args(self, scope, h, d):
        """Arguments of a call of h: pointers first (distinct arrays), then scalars."""
        args, used, written = [None] * len(h.params), [], set()
        for k, (kind, _) in enumerate(h.params):
            if kind == "m":
                args[k] = IV(str(self.cur_m))
            elif kind in ("in", "out", "one"):
                need = self.cur_m if kind != "one" else 1
                p, base = self.ptr_source(scope, need, kind != "in", avoid=used)
                if p is None:
                    return None
                used.append(base)
                if kind != "in":
                    written.add(base)
                args[k] = p
        sc = scope
        if "001" in AVOID and written:
            # known bug 001: a scalar argument that reads an array the call writes
            sc = Scope(scope)
            sc.arrs = [a for a in scope.arrs if a.name not in written]
        for k, (kind, _) in enumerate(h.params):
            if kind == "T":
                args[k] = self.squash_to(self.fexpr(sc, d), VMAG)
        return args

    def value_call(self, scope, d):
        for _ in range(3):
            h = self.pick(self.value_helpers())
            self.cur_m = self.r.randint(1, 3)
            args = self.call_args(scope, h, d)
            if args is not None:
                return Call(h.name, args, mag=h.mag)
        return self.leaf(scope)

    def st_vcall(self, scope):
        for _ in range(3):
            h = self.pick(self.void_helpers())
            self.cur_m = self.r.randint(1, 3)
            args = self.call_args(scope, h, 1)
            if args is not None:
                return [Line("%s;", Call(h.name, args))]
        return self.st_assign(scope)

    def st_ocall(self, scope):
        """t = h(out, ...) / t += h(out, ...): a value helper that also writes through a pointer."""
        for _ in range(3):
            h = self.pick(self.out_helpers())
            self.cur_m = self.r.randint(1, 3)
            t = self.target(scope)
            args = self.call_args(scope, h, 1)
            if args is not None:
                op = "+=" if "003" in AVOID and scope.loop > 0 and not t.idx and t.deref is None else self.pick(["=", "+="])
                return [Line("%s %s %s;", t, op, Call(h.name, args, mag=h.mag))]
        return self.st_assign(scope)

    def make_helper(self, idx):
        """A helper with a visible body; returns (Helper, signature fn, body)."""
        r = self.r
        name = "%s_h%d" % (self.name, idx)
        kind = self.wpick([(3, "scalar"), (2, "reduce"), (3, "void_arr"), (2, "void_one"), (2, "value_out")])
        scope = Scope()
        self.in_helper = True
        self.budget = r.randint(2, 6)
        self.max_loop = 1 if kind in ("scalar", "void_one") else 2
        params = []
        if kind == "scalar":
            self.fn_ret = "T"
            for p in ("u", "v")[: r.randint(1, 2)]:
                params.append(("T", p))
                scope.fs.append((p, VMAG, self.chance(0.3)))
            body = self.block(scope, r.randint(1, 3))
            body.append(Line("return %s;", self.squash_to(self.ret_expr(scope), 4.0)))
            mag = 4.0
        elif kind == "reduce":
            self.fn_ret = "T"
            params = [("in", "p"), ("m", "m"), ("T", "u")]
            scope.arrs.append(FArr("p", ["m"], False, True))
            scope.ints.append(IVar("m", 1, 3))
            scope.fs.append(("u", VMAG, False))
            acc = self.fresh("acc")
            scope.fs.append((acc, VMAG, True))
            self.runtime_bounds = {"m"}
            loopi = IVar("j", 0, 2, sym="m")
            inner = Scope(scope)
            inner.loop = 1
            inner.ints.append(loopi)
            lb = self.block(inner, r.randint(1, 3))
            lb.append(Line("%s += %s;", acc, Bin("*", Lit(self.const(0.2, 0.6)), Math("tanh", [Ref("p", [IV("j")])], self.style(), 1))))
            body = [Decl("%s %s = %s;", "T", acc, Lit(self.const(-0.5, 0.5))),
                    Block("for (int j = 0; j < m; ++j) {", lb, "}")]
            body += self.block(scope, r.randint(0, 1))
            body.append(Line("return %s;", self.squash_to(self.ret_expr(scope), 4.0)))
            mag = 4.0
        elif kind == "value_out":
            self.fn_ret = "T"
            params = [("out", "y"), ("in", "p"), ("m", "m"), ("T", "u")]
            scope.arrs.append(FArr("y", ["m"], True, True))
            scope.arrs.append(FArr("p", ["m"], False, True))
            scope.ints.append(IVar("m", 1, 3))
            scope.fs.append(("u", VMAG, False))
            acc = self.fresh("acc")
            scope.fs.append((acc, VMAG, True))
            self.runtime_bounds = {"m"}
            inner = Scope(scope)
            inner.loop = 1
            inner.ints.append(IVar("j", 0, 2, sym="m"))
            lb = self.block(inner, r.randint(1, 2))
            lb.append(Line("y[j] = %s;", Math("tanh", [Bin("+", Ref("y", [IV("j")]), Bin("*", Ref("p", [IV("j")]), Ref(acc)))], self.style(), 1)))
            lb.append(Line("%s += %s;", acc, Bin("*", Lit(self.const(0.2, 0.6)), Ref("y", [IV("j")]))))
            body = [Decl("%s %s = %s;", "T", acc, Ref("u")), Block("for (int j = 0; j < m; ++j) {", lb, "}")]
            body.append(Line("return %s;", self.squash_to(self.ret_expr(scope), 4.0)))
            mag = 4.0
        elif kind == "void_arr":
            self.fn_ret = "void"
            params = [("out", "y"), ("in", "p"), ("m", "m"), ("T", "u")]
            scope.arrs.append(FArr("y", ["m"], True, True))
            scope.arrs.append(FArr("p", ["m"], False, True))
            scope.ints.append(IVar("m", 1, 3))
            scope.fs.append(("u", VMAG, False))
            self.runtime_bounds = {"m"}
            inner = Scope(scope)
            inner.loop = 1
            inner.ints.append(IVar("j", 0, 2, sym="m"))
            lb = self.block(inner, r.randint(1, 3))
            upd = self.squash_to(self.fexpr(inner, 2), VMAG)
            lb.append(Line("y[j] = %s;", Math("tanh", [Bin("+", Ref("y", [IV("j")]), upd)], self.style(), 1)))
            body = [Block("for (int j = 0; j < m; ++j) {", lb, "}")]
            mag = 0
        else:
            self.fn_ret = "void"
            params = [("T", "u"), ("one", "o")]
            scope.fs.append(("u", VMAG, False))
            scope.arrs.append(FArr("o", [1], True, True))
            body = self.block(scope, r.randint(0, 2))
            op = self.pick(["=", "+=", "*="])
            rr = self.rhs(scope, op)
            body.append(Line("*o %s %s;", op, rr))
            mag = 0
        self.in_helper = False
        self.runtime_bounds = set()
        h = Helper(name, "void" if kind.startswith("void") else "value_out" if kind == "value_out" else "value",
                   params)
        h.mag = mag if mag else 3.0
        static = self.pick(["static ", "", "inline "])
        return h, (static, params), body

    # -- the kernel
    def generate(self):
        r = self.r
        self.runtime_bounds = set()
        self.sel_param = None
        nh = self.wpick([(2, 0), (3, 1), (3, 2), (1, 3)])
        helper_defs = []
        for j in range(nh):
            h, sig, body = self.make_helper(j)
            helper_defs.append((h, sig, body))
            self.helpers.append(h)

        # parameters and constant globals
        scope = Scope()
        if self.chance(0.25):
            name = "%s_g" % self.name
            vals = [self.const(-1.5, 1.5) for _ in range(r.randint(2, 5))]
            self.globals.append((name, vals, True))
            scope.arrs.append(FArr(name, [len(vals)], False, False, glob=True))
        if self.chance(0.15):
            name = "%s_k" % self.name
            self.globals.append((name, [self.const(0.2, 1.5)], False))
            self.global_names.add(name)
            scope.fs.append((name, 1.5, False))
        params = []  # (ctype key, name, info)
        LX = r.randint(2, 6)
        params.append(("in", "x", LX))
        if self.chance(0.5):
            params.append(("in", "w", r.randint(2, 5)))
        if self.chance(0.8):
            params.append(("int", "n", self.wpick([(1, 0), (2, 1), (4, 2), (4, 3), (3, 4), (2, 5)])))
        if self.chance(0.3):
            params.append(("int", "m", r.randint(1, 4)))
        if self.chance(0.7):
            params.append(("T", "s", None))
        if self.chance(0.25):
            params.append(("T", "c", None))
        void = self.chance(0.25)
        if void or self.chance(0.6):
            params.append(("out", "io", r.randint(1, 6)))
        if self.chance(0.25):
            params.append(("sel", "sel", r.randint(2, 6)))
        r.shuffle(params)
        # keep x first more often (easier to read)
        params.sort(key=lambda p: 0 if p[1] == "x" and self.chance(0.7) else 1)
        self.fn_ret = "void" if void else "T"
        for kind, name, info in params:
            if kind == "in":
                scope.arrs.append(FArr(name, [info], False, True))
            elif kind == "out":
                scope.arrs.append(FArr(name, [info], True, True))
            elif kind == "int":
                scope.ints.append(IVar(name, info, info))
                self.runtime_bounds.add(name)
            elif kind == "T":
                scope.fs.append((name, 1.0, self.chance(0.2)))
            elif kind == "sel":
                self.sel_param = FArr(name, [info], False, True)
        # wrt: io always; others by chance
        floating = [p for p in params if p[0] in ("in", "T", "out")]
        grad_all = self.chance(0.25)
        if grad_all:
            wrt = [p[1] for p in floating]
        else:
            wrt = [p[1] for p in floating if p[0] == "out" or self.chance(0.7)]
            if not wrt:
                wrt = [floating[0][1]]
        self.params, self.wrt, self.grad_all = params, wrt, grad_all
        self.pstyle = {}
        for kind, name, info in params:
            if kind in ("in", "out") and self.chance(0.2):
                self.pstyle[name] = self.pick(["[]", "[N]"])

        self.max_loop = 3
        self.budget = r.randint(6, 18)
        body = []
        # a few locals up front, so statements have something to work with
        for _ in range(r.randint(1, 3)):
            body += self.st_decl(scope)
        body += self.block(scope, r.randint(0, 3))
        if self.chance(0.3):
            body += self.st_loop(scope, force="for_long")
        body += self.block(scope, 40)
        if void:
            io = [a for a in scope.arrs if a.name == "io"][0]
            body.append(Line("io[%d] += %s;", r.randrange(io.dims[0]), Bin("*", Lit(0.5), self.final_expr(scope))))
        else:
            body.append(Line("return %s;", self.final_expr(scope)))
        self.body = body
        self.helper_defs = helper_defs
        self.inputs = {}
        for kind, name, info in params:
            if kind in ("in", "out"):
                self.inputs[name] = [round(r.uniform(-1, 1), 4) for _ in range(info)]
            elif kind == "T":
                self.inputs[name] = [round(r.uniform(-1, 1), 4)]
            elif kind == "sel":
                self.inputs[name] = [r.randint(0, 5) for _ in range(info)]
        return self

    # -- rendering
    def ptype(self, kind, T):
        return {"in": "const %s*" % T, "out": "%s*" % T, "one": "%s*" % T, "T": T, "m": "int", "int": "int",
                "sel": "const int*"}[kind]

    def render_helper(self, hd, c):
        h, (static, params), body = hd
        ret = "void" if h.kind == "void" else c.T
        ps = ", ".join("%s %s" % (self.ptype(k, c.T), n) for k, n in params)
        out = ["%s%s %s%s(%s) {" % (static, ret, h.name, c.suffix, ps)]
        for s in body:
            out += s.lines(c, "  ")
        out.append("}")
        return out

    def pdecl(self, kind, name, info, T):
        """A kernel parameter: pointers are sometimes spelled as arrays, T x[] or T x[N]."""
        st = self.pstyle.get(name)
        if kind in ("in", "out") and st:
            return "%s%s %s[%s]" % ("const " if kind == "in" else "", T, name, info if st == "[N]" else "")
        return "%s %s" % (self.ptype(kind, T), name)

    def signature(self, c, name):
        ret = "void" if self.fn_ret == "void" else c.T
        ps = ", ".join(self.pdecl(k, n, info, c.T) for k, n, info in self.params)
        return "%s %s(%s)" % (ret, name, ps)

    def render_kernel(self, c, marked):
        out = []
        for name, vals, arr in self.globals:
            if arr:
                out.append("static const %s %s%s[%d] = {%s};" % (c.T, name, c.suffix, len(vals),
                                                                ", ".join(lit(v, c) for v in vals)))
            else:
                out.append("constexpr %s %s%s = %s;" % (c.T, name, c.suffix, lit(vals[0], c)))
        for hd in self.helper_defs:
            out += self.render_helper(hd, c)
        if marked:
            out.append("CGP_GRAD(%s)" % ("" if self.grad_all else ", ".join(self.wrt)))
        out.append(self.signature(c, self.name + c.suffix) + " {")
        for s in self.body:
            out += s.lines(c, "  ")
        out.append("}")
        return out

    def kernel_source(self):
        """Helpers and the marked kernel (for cgp-ad)."""
        return "\n".join(self.render_kernel(Ctx(self.T, False, ""), True)) + "\n"

    def twin_source(self):
        """Traced twins (and the double twin of a float kernel)."""
        out = self.render_kernel(Ctx(self.T, True, "_tr"), False)
        if self.T == "float":
            out += self.render_kernel(Ctx("double", True, "_trd"), False)
        return "\n".join(out) + "\n"

    def grad_decl(self):
        c = Ctx(self.T, False, "")
        ret = "void" if self.fn_ret == "void" else c.T
        ps = ["%s %s" % (self.ptype(k, c.T), n) for k, n, _ in self.params]
        ps += ["%s* d_%s" % (c.T, n) for k, n, _ in self.params if n in self.wrt]
        return "%s %s_grad(%s);" % (ret, self.name, ", ".join(ps))

    def case_source(self):
        """The fz::Case of this kernel, as a function run_<name>()."""
        T = self.T
        fl = T == "float"
        pi = {}
        lines = ["static void run_%s() {" % self.name]
        lines.append('  fz::Case c("%s", %s, %s);' % (self.name, "true" if fl else "false",
                                                       "false" if self.fn_ret == "void" else "true"))
        k = 0
        for kind, name, info in self.params:
            if kind in ("in", "out", "T"):
                fk = {"in": "fz::IN", "out": "fz::INOUT", "T": "fz::SCALAR"}[kind]
                vals = ", ".join(repr(v) for v in self.inputs[name])
                lines.append('  c.add("%s", %s, %s, {%s});' % (name, fk, "true" if name in self.wrt else "false", vals))
                pi[name] = k
                k += 1
            elif kind == "int":
                lines.append("  const int %s = %d;" % (name, info))
            elif kind == "sel":
                lines.append("  static const int %s[] = {%s};" % (name, ", ".join(str(v) for v in self.inputs[name])))

        def args(b, dbl):
            out = []
            for kind, name, _ in self.params:
                if kind in ("in", "out"):
                    out.append("%s.p%s(%d)" % (b, "d" if dbl else "f", pi[name]))
                elif kind == "T":
                    out.append("%s.s%s(%d)" % (b, "d" if dbl else "f", pi[name]))
                else:
                    out.append(name)
            return out

        own = not fl
        call = lambda fn, a: ("return static_cast<double>(%s(%s));" % (fn, ", ".join(a))) if self.fn_ret != "void" \
            else "%s(%s); return 0.0;" % (fn, ", ".join(a))
        lines.append("  c.primal = [&](fz::Bufs& b) { %s };" % call(self.name, args("b", own)))
        lines.append("  c.twin = [&](fz::Bufs& b) { %s };" % call(self.name + "_tr", args("b", own)))
        if fl:
            lines.append("  c.twin_d = [&](fz::Bufs& b) { %s };" % call(self.name + "_trd", args("b", True)))
        ga = args("b", own) + ["g.p%s(%d)" % ("d" if own else "f", pi[n]) for _, n, _ in self.params if n in self.wrt]
        lines.append("  c.grad = [&](fz::Bufs& b, fz::Bufs& g) { %s };" % call(self.name + "_grad", ga))
        lines.append("  c.run();")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def primal_decl(self):
        return self.signature(Ctx(self.T, False, ""), self.name) + ";"


def is_const(e):
    """True for expressions of literals only."""
    if isinstance(e, Lit):
        return True
    if isinstance(e, Bin):
        return is_const(e.a) and is_const(e.b)
    if isinstance(e, (Neg, ViaDouble)):
        return is_const(e.a)
    if isinstance(e, Math):
        return all(is_const(a) or isinstance(a, IV) for a in e.args)
    if isinstance(e, Call):
        return all(is_const(a) if isinstance(a, Node) else isinstance(a, IV) for a in e.args)
    if isinstance(e, Tern):
        return is_const(e.a) and is_const(e.b)
    return False


def is_small(e):
    if isinstance(e, Neg):
        return is_small(e.a)
    return isinstance(e, (Lit, Ref, IntAsT))


def a_is_scalar_ptr(a):
    return a.pointer and a.dims == [1] and a.name == "o"


class InitList:
    def __init__(self, items):
        self.items = items

    def r(self, c):
        return ", ".join(i.r(c) for i in self.items)


class RowList:
    def __init__(self, rows):
        self.rows = rows

    def r(self, c):
        return ", ".join("{%s}" % row.r(c) for row in self.rows)


def generate(seed):
    return Gen(seed).generate()


if __name__ == "__main__":
    g = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    sys.stdout.write(g.kernel_source())
    sys.stdout.write("\n// ---- traced twin\n" + g.twin_source())
    sys.stdout.write("\n// ---- test case\n" + g.case_source())
