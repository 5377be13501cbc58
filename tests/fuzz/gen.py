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
ternaries and math functions on safe domains; and, drawn from a second
stream (Gen.init_extras) so that seeds keep their kernels otherwise, local
pointers and references, helpers and kernel parameters taking T& / const T&,
template helpers, range-based for, enum class and constexpr helpers; from a third, structs;
from a fourth, lambdas (passed to function templates too, as a seventh decides; an eighth makes
kernels templates); from a fifth (Gen.init_containers), std::vector and std::array
parameters, locals and helpers; from a sixth (Gen.init_complex), std::complex locals, their
arithmetic and functions. Values are kept bounded
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
import contextlib
import math
import random
import re
import sys

GLOBAL_NAME = re.compile(r"^k\d+_[gk]$")  # constant globals of kernel kN: kN_g (array), kN_k (scalar)

# ---------------------------------------------------------------- rendering


class Ctx:
    """How to render: the floating type, traced or not, the name suffix."""

    def __init__(self, T, traced, suffix, tlit=False):
        self.T = T  # "T" in the body of a template helper
        self.traced = traced
        self.suffix = suffix
        self.tlit = tlit  # literals spelled static_cast<T>(...) (template helpers of float kernels)


PLAIN = Ctx("double", False, "")  # for comparing expressions by their text


def lit(v, ctx):
    s = "%.3g" % v
    if "e" in s:
        s = "%.4f" % v
    if "." not in s:
        s += ".0"
    if ctx.T == "float":
        s += "f"
    if ctx.tlit:
        return "static_cast<T>(%s)" % s
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
        if self.style == "std" or (c.T == "T" and self.style == "suffix"):
            return "std::%s(%s)" % (self.fn, a)
        if self.style == "suffix" and c.T == "float":
            return "%sf(%s)" % (self.fn, a)
        return "%s(%s)" % (self.fn, a)


# Eigen's fixed-size matrices (the twelfth stream) only where run.py --eigen asks for them: the
# kernels then include <Eigen/Dense>, which a machine without Eigen cannot compile.
EIGEN = False


class ENode(Node):
    """An Eigen expression (or a number read from one): fmt % rendered parts, with `Eigen::Matrix<T`
    spelled with the floating type; mag bounds the modulus of each coefficient."""

    def __init__(self, fmt, parts, mag):
        self.fmt, self.parts, self.mag = fmt, parts, mag

    def r(self, c):
        return self.fmt.replace("Matrix<T,", "Matrix<%s," % c.T) % tuple(p.r(c) for p in self.parts)


class CNode(Node):
    """A std::complex expression (or a real number read from one): fmt % rendered parts ('T' in fmt is the floating type);
    mag bounds its modulus."""

    def __init__(self, fmt, parts, mag):
        self.fmt, self.parts, self.mag = fmt, parts, mag

    def r(self, c):
        return self.fmt.replace("std::complex<T>", "std::complex<%s>" % c.T) % tuple(
            p.r(c) for p in self.parts)


def math_exp(m):
    """A bound of |exp(z)| for |z| <= m."""
    return math.exp(m)


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
    """A call of a helper (value or void); args are nodes or PtrArg.

    A call of a template helper (helper.tmpl) names its template arguments when
    `explicit` (or when it must: a non-type argument first, T before m) and passes the
    non-type one (the `m` argument of the plain helper) as `<..., m>` instead."""

    def __init__(self, name, args, mag=3.0, helper=None):
        self.name, self.args, self.mag = name, args, mag
        self.helper = helper
        self.explicit = False

    def r(self, c):
        args, ta = self.args, ""
        h = self.helper
        if h is not None and getattr(h, "tmpl", None):
            if h.tmpl == "T":
                ta = "<%s>" % c.T if self.explicit else ""
            else:
                k = [j for j, (kind, _) in enumerate(h.params) if kind == "m"][0]
                m = args[k].r(c)
                args = args[:k] + args[k + 1:]
                if h.tmpl == "Tm":
                    ta = "<%s, %s>" % (c.T, m)
                else:  # "mT": T is deduced unless explicit
                    ta = "<%s, %s>" % (m, c.T) if self.explicit else "<%s>" % m
        return "%s%s%s(%s)" % (self.name, c.suffix, ta, ", ".join(a.r(c) for a in args))


class IntAsT(Node):
    """An int value used as a floating one: 0.25 * i, or static_cast<T>(i)."""

    def __init__(self, i, k, cast):
        self.i, self.k, self.cast = i, k, cast
        self.mag = 2.0

    def r(self, c):
        if self.cast:
            return "(%s * static_cast<%s>(%s))" % (lit(self.k, c), c.T, self.i.r(c))
        return "(%s * %s)" % (lit(self.k, c), self.i.r(c))


class LCall(Node):
    """A call of a lambda variable: name(args), or through a function template that takes the
    lambda: via(name, args)."""

    def __init__(self, name, args, mag=9.0, via=None):
        self.name, self.args, self.mag, self.via = name, args, mag, via

    def r(self, c):
        if self.via:
            return "%s(%s, %s)" % (self.via, self.name, ", ".join(a.r(c) for a in self.args))
        return "%s(%s)" % (self.name, ", ".join(a.r(c) for a in self.args))


class LNow(Node):
    """A lambda called where it is written: [&](T lx) { return e; }(arg), or written as the
    argument of a function template that calls it: via([&](T lx) { return e; }, arg)."""

    def __init__(self, ptype, e, arg, via=None):
        self.ptype, self.e, self.arg, self.via = ptype, e, arg, via
        self.mag = 9.0

    def r(self, c):
        if self.via:
            return "%s([&](%s lx) { return %s; }, %s)" % (self.via, self.ptype.r(c), self.e.r(c),
                                                          self.arg.r(c))
        return "[&](%s lx) { return %s; }(%s)" % (self.ptype.r(c), self.e.r(c), self.arg.r(c))


class Spelled:
    """Text in which T is the floating type: 'const T&'; or a statement: fmt % rendered parts."""

    def __init__(self, fmt, *parts):
        self.fmt, self.parts = fmt, parts

    def r(self, c):
        text = Line(self.fmt, *self.parts).lines(c, "")[0]
        return text.replace("T", c.T) if not self.parts else text


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

    def __init__(self, name, dims, writable, pointer, glob=False, base=None):
        self.name, self.dims, self.writable, self.pointer = name, dims, writable, pointer
        self.glob = glob
        self.base = base  # a local pointer: the array it points into (None: the array itself)


class IVar:
    def __init__(self, name, lo, hi, sym=None, writable=False):
        self.name, self.lo, self.hi, self.sym, self.writable = name, lo, hi, sym, writable


class Scope:
    def __init__(self, parent=None):
        if parent is None:
            self.fs, self.arrs, self.ints = [], [], []
            self.cx = []
            self.ev = []
            self.loop = 0  # loop depth
            self.level = 0
        else:
            self.fs, self.arrs, self.ints = list(parent.fs), list(parent.arrs), list(parent.ints)
            self.structs = list(getattr(parent, "structs", []))  # struct variables (third stream's code)
            self.cx = list(getattr(parent, "cx", []))  # std::complex locals (sixth stream's code)
            self.ev = list(getattr(parent, "ev", []))  # Eigen locals (twelfth stream's code): (name, rows)
            self.bools = list(getattr(parent, "bools", []))
            self.loop = parent.loop
            self.level = parent.level + 1


class Helper:
    def __init__(self, name, kind, params):
        self.name, self.kind, self.params = name, kind, params
        self.tmpl = None  # template helper: "T" (typename T), "Tm" (typename T, int m), "mT" (int m, typename T)


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
        self.init_extras()
        self.init_structs()
        self.init_lambdas()
        self.init_containers()
        self.init_template_kernel()
        self.init_complex()
        self.init_eigen()

    # -- small utilities
    def fresh(self, base):
        if self.eig:  # names of the twelfth stream's code (ve1, ...)
            self.ecounter += 1
            return "%se%d" % (base, self.ecounter)
        if self.cplx:  # names of the sixth stream's code (zq1, ...)
            self.qcounter += 1
            return "%sq%d" % (base, self.qcounter)
        if self.cont:  # names of the fifth stream's code (vc1, jc2, ...)
            self.ccounter += 1
            return "%sc%d" % (base, self.ccounter)
        if self.lam:  # names of the fourth stream's code (fl1, il2, ...)
            self.lcounter += 1
            return "%sl%d" % (base, self.lcounter)
        if self.alt_depth and self.salt:  # names of the third stream's code (ty1, sy2, ...)
            self.ycounter += 1
            return "%sy%d" % (base, self.ycounter)
        if self.alt_depth:  # names of the second stream's code: their own counter (tz1, iz2, ...)
            self.zcounter += 1
            return "%sz%d" % (base, self.zcounter)
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
            if not self.alt_depth and self.xrate and self.r2.random() < self.xrate:
                out += self.snippet(scope)  # from the second stream: the first one is not disturbed
            if not self.alt_depth and not self.in_helper and self.srate and self.r3.random() < self.srate:
                out += self.struct_snippet(scope)  # from the third stream: structs
            if not self.alt_depth and not self.in_helper and self.lrate and self.r4.random() < self.lrate:
                out += self.lambda_snippet(scope)  # from the fourth stream: lambdas
            if not self.alt_depth and not self.in_helper and self.crate and self.r5.random() < self.crate:
                out += self.container_snippet(scope)  # from the fifth stream: std::vector, std::array
            if not self.alt_depth and not self.in_helper and self.qrate and self.r6.random() < self.qrate:
                out += self.complex_snippet(scope)  # from the sixth stream: std::complex
            if not self.alt_depth and not self.in_helper and self.erate and self.r12.random() < self.erate:
                out += self.eigen_snippet(scope)  # from the twelfth stream: Eigen matrices
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
            if self.r9.random() < self.cinc:  # the counter moves in the condition: while (i++ < K)
                c = Cmp("<", IV(i + "++"), IV(str(K)), False)
                c = c if fcond is None else Logic("&&", c, fcond)
                return [Decl("int %s = 0;", i), Block("while (%s) {", body, "}", (c,))]
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

    # -- constructs drawn from the second random stream
    #
    # Local pointers and references, range-for, reference parameters, template helpers,
    # enum class and constexpr helpers. Every decision about them is drawn from self.r2
    # (random.Random(seed * 7919 + 13)); while their code is generated (alt()), self.r *is*
    # self.r2 and the generator's state (budget, names, scope) is saved and restored, so the
    # first stream draws exactly what it drew before they existed: a seed's kernel is its old
    # kernel with these constructs inserted between its statements (or none, for a fifth of
    # the seeds).
    def init_extras(self):
        x = self.r2 = random.Random(self.seed * 7919 + 13)
        self.alt_depth = 0
        self.zcounter = 0
        self.xprefer = None
        self.xrate = x.choice([0.0, 0.12, 0.2, 0.3, 0.4])  # chance of a construct after a statement
        self.xtmpl = x.random() < 0.5  # some helpers become function templates
        self.xref_param = x.random() < 0.3  # a `T& ra` kernel parameter (in/out, wrt)
        self.xcref = set()  # scalar kernel parameters passed as `const T&`
        self.xcref_p = 0.5 if x.random() < 0.35 else 0.0
        self.xenum = x.random() < 0.25  # enum class kN_E { A, B, C } (and sometimes a `kN_E mode` parameter)
        self.xmode = None  # the enumerator passed for `mode`
        self.xconstexpr = x.random() < 0.3  # namespace kN_ns { constexpr int twice(int), next(int) }
        self.xusing = x.sample(["sqrt", "tanh", "exp", "sin"], x.randint(1, 2)) if x.random() < 0.2 else []
        self.nxh = x.choice([0, 0, 1, 1, 2])  # helpers with reference parameters
        self.xhelpers = []  # Helper
        self.xhelper_defs = []
        self.xref_names = set()  # local references and range-for variables (never referenced again)

    @contextlib.contextmanager
    def alt(self, budget, stream=None):
        saved = (self.r, self.budget, self.fn_ret, self.max_loop, self.in_helper, set(self.runtime_bounds),
                 self.long_loops, getattr(self, "cur_m", None), list(self.bools), dict(self.level_of))
        self.r = stream or self.r2
        salt = self.salt
        self.salt = stream is not None
        self.alt_depth += 1
        self.budget = budget
        self.long_loops = 1  # no second long loop
        try:
            yield
        finally:
            (self.r, self.budget, self.fn_ret, self.max_loop, self.in_helper, self.runtime_bounds,
             self.long_loops, self.cur_m, self.bools, self.level_of) = saved
            self.alt_depth -= 1
            self.salt = salt
            self.xprefer = None

    def param_names(self):
        if self.in_helper:
            return {"u", "v", "p", "y", "m", "o", "a", "b", "c", "s", "w"}
        return {n for _, n, _ in self.params}

    def xscope(self, scope):
        sc = Scope(scope)
        sc.level, sc.loop = scope.level, scope.loop
        if not self.in_helper and self.xref_param:
            sc.fs.append(("ra", VMAG, True))
        return sc

    def snippet(self, scope):
        with self.alt(self.r2.randint(1, 3)):
            sc = self.xscope(scope)
            arr1 = [a for a in sc.arrs if len(a.dims) == 1 and not a.glob and a.base is None]
            arr1i = [a for a in arr1 if isinstance(a.dims[0], int)]
            kernel = not self.in_helper
            calls = self.value_helpers() or self.void_helpers() or self.out_helpers()
            kinds = [(4 if [a for a in arr1i if a.dims[0] >= 2] else 0, "row"), (4 if arr1 else 0, "walk"),
                     (3 if kernel and arr1i and calls else 0, "pcall"), (4, "ref"), (2 if arr1 else 0, "cref"),
                     (4 if kernel and self.xhelpers else 0, "xcall"), (3, "rfor"),
                     (2 if kernel and self.xenum else 0, "enum"), (2 if kernel and self.xconstexpr else 0, "cexpr")]
            k = self.wpick(kinds)
            out = getattr(self, "x_" + k)(sc)
        return out

    def acc_line(self, sc, e, avoid=()):
        """tgt += c * tanh(e) into a target of sc (not one in avoid), or nothing."""
        for _ in range(3):
            t = self.target(sc)
            if t is None:
                return []
            if t.name not in avoid:
                return [Line("%s += %s;", t, Bin("*", Lit(self.const(0.1, 0.4)), Math("tanh", [e], self.style(), 1.0)))]
        return []

    def x_row(self, sc):
        """A row pointer into a buffer: `const T* row = a + i * C;` in a loop, then row[k]."""
        a = self.pick([a for a in sc.arrs if len(a.dims) == 1 and not a.glob and a.base is None
                       and isinstance(a.dims[0], int) and a.dims[0] >= 2])
        L = a.dims[0]
        C = self.r.randint(1, min(L, 4))
        R = L // C
        writable = a.writable and self.chance(0.5)
        name = self.fresh("row")
        inner = Scope(sc)
        ivs = [v for v in sc.ints if v.lo >= 0 and (v.hi + 1) * C <= L]
        own = sc.loop < self.max_loop and (not ivs or self.chance(0.5))
        if own:
            i = self.fresh("i")
            inner.loop += 1
            inner.ints.append(IVar(i, 0, R - 1))
            ri = IV(i)
        elif ivs:
            ri = IV(self.pick(ivs).name)
        else:
            ri = IV(str(self.r.randrange(R)))
        off = IBin("*", ri, IV(str(C))) if C > 1 else ri
        init = "&%s[%s]" if self.chance(0.3) else "%s + %s"
        decl = Decl("%s%s* %s = " + init + ";", "" if writable else "const ", "T", name, a.name, off)
        inner.arrs.append(FArr(name, [C], writable, True, base=a.name))
        body = [decl] + self.block(inner, self.r.randint(0, 2))
        e = Bin("*", Ref(name, [IV(str(self.r.randrange(C)))]), self.var_leaf(inner))
        if C > 1 and self.chance(0.3):
            e = Bin("+", e, Ref(name, deref=self.r.randrange(C)))
        body += self.acc_line(inner, e)
        if own:
            return [Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (i, i, R, i))]
        return [Block("{", body, "}")]

    def x_walk(self, sc):
        """A pointer walked through a buffer with ++ / -- / += (reading, or writing through it)."""
        r = self.r
        a = self.pick([a for a in sc.arrs if len(a.dims) == 1 and not a.glob and a.base is None])
        L = a.dims[0]
        sym = not isinstance(L, int)
        forms = ["while", "for", "count", "back"] + (["step"] if not sym and L >= 2 else []) + \
            (["write", "write"] if a.writable else [])
        form = self.pick(forms)
        p, e_ = self.fresh("p"), self.fresh("pe")
        inner = Scope(sc)
        inner.loop += 1
        deep = inner.loop <= self.max_loop
        nb = lambda: self.block(inner, r.randint(0, 2)) if deep else []
        k0 = 0 if sym or self.chance(0.6) else r.randrange(L)
        start = a.name if k0 == 0 else "%s + %d" % (a.name, k0)
        end = "%s + %s" % (a.name, L)
        nv = [v for v in sc.ints if v.name in self.runtime_bounds and not sym and v.lo == v.hi and k0 <= v.lo <= L]
        if nv and self.chance(0.4):
            end = "%s + %s" % (a.name, self.pick(nv).name)
        if form == "while":
            v = self.fresh("v")
            inner.fs.append((v, VMAG, True))
            body = [Decl("%s %s = *%s++;", "T", v, p)] + nb() + self.acc_line(inner, Bin("*", Ref(v), self.var_leaf(inner)))
            out = [Decl("const %s* %s = %s;", "T", p, start), Decl("const %s* %s = %s;", "T", e_, end)]
            if self.chance(0.4):
                out += self.acc_line(sc, Bin("*", Lit(0.3), IntAsT(IV("static_cast<int>(%s - %s)" % (e_, p)), 0.25, True)))
            return out + [Block("while (%s %s %s) {", body, "}", (p, self.pick(["!=", "<"]), e_))]
        if form == "for":
            inner.arrs.append(FArr(p, [1], False, True, base=a.name))
            body = nb() + self.acc_line(inner, Bin("*", Ref(p, deref=0), self.var_leaf(inner)))
            cmp = self.pick(["!=", "<"])
            return [Block("for (const %s* %s = %s; %s %s %s; ++%s) {", body, "}", ("T", p, start, p, cmp, end, p))]
        if form == "count":
            n = L - k0 if not sym else L
            j = self.fresh("j")
            inner.ints.append(IVar(j, 0, (n - 1) if not sym else 2, sym=L if sym else None))
            inc = Line(self.pick(["++%s;", "%s++;", "%s += 1;"]), p)
            body = nb() + self.acc_line(inner, Bin("*", Ref(p, deref=0), self.var_leaf(inner))) + [inc]
            return [Decl("const %s* %s = %s;", "T", p, start),
                    Block("for (int %s = 0; %s < %s; ++%s) {", body, "}", (j, j, n, j))]
        if form == "back":
            dec = Line(self.pick(["--%s;", "%s--;", "%s -= 1;"]), p)
            body = [dec] + nb() + self.acc_line(inner, Bin("*", Ref(p, deref=0), self.var_leaf(inner)))
            return [Decl("const %s* %s = %s;", "T", p, end),
                    Block("while (%s %s %s) {", body, "}", (p, self.pick(["!=", ">"]), start))]
        if form == "step":
            j = self.fresh("j")
            h = L // 2
            body = self.acc_line(sc, Bin("*", Ref(p, deref=0), Ref(p, deref=1))) + [Line("%s += 2;", p)]
            out = [Decl("const %s* %s = %s;", "T", p, a.name),
                   Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (j, j, h, j))]
            out.append(Line("%s -= 1;", p))  # a + 2 * (L / 2) - 1, the last element read or the one after
            out += self.acc_line(sc, Bin("*", Ref(p, deref=0), self.var_leaf(sc)))
            if self.chance(0.5):
                k = r.randrange(L)
                out += [Line("%s = %s + %d;", p, a.name, k)] + self.acc_line(sc, Ref(p, deref=0))
            return out
        # write through a walked pointer (E does not read the pointer)
        j = self.fresh("j")
        n = L - k0 if not sym else L
        op = self.pick(["=", "*=", "+="])
        rhs = self.rhs(sc, op) if op != "=" else Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)
        body = [Line("*%s++ %s %s;", p, op, rhs)]
        return [Decl("%s* %s = %s;", "T", p, start), Block("for (int %s = 0; %s < %s; ++%s) {", body, "}", (j, j, n, j))]

    def x_pcall(self, sc):
        """A local pointer into a buffer passed to a helper (`h(row, ...)`, `h(row + 1, ...)`)."""
        a = self.pick([a for a in sc.arrs if len(a.dims) == 1 and not a.glob and a.base is None
                       and isinstance(a.dims[0], int)])
        L = a.dims[0]
        off = self.r.randrange(L) if self.chance(0.6) else 0
        writable = a.writable and self.chance(0.6)
        name = self.fresh("pc")
        init = a.name if off == 0 else self.pick(["%s + %d" % (a.name, off), "&%s[%d]" % (a.name, off)])
        out = [Decl("%s%s* %s = %s;", "" if writable else "const ", "T", name, init)]
        sc.arrs.append(FArr(name, [L - off], writable, True, base=a.name))
        self.xprefer = name
        k = self.r.random()
        if self.void_helpers() and (k < 0.4 or not self.value_helpers()):
            out += self.st_vcall(sc)
        elif self.out_helpers() and self.target(sc) is not None and (k < 0.7 or not self.value_helpers()):
            out += self.st_ocall(sc)
        else:
            t = self.target(sc)
            if t is None:
                return []
            out.append(Line("%s += %s;", t, Bin("*", Lit(self.const(0.2, 0.5)), self.value_call(sc, 1))))
        return [Block("{", out, "}")] if self.chance(0.3) else out

    def ref_scalars(self, sc):
        pn = self.param_names()
        return [v for v in sc.fs if v[2] and v[0] not in pn and v[0] not in self.global_names
                and v[0] not in self.xref_names]

    def x_ref(self, sc):
        """`T& r = a[i];` or `T& r = t;`, written (and read) through r."""
        arrs = [a for a in sc.arrs if len(a.dims) == 1 and a.writable and not a.glob and a.base is None]
        scal = self.ref_scalars(sc)
        if not arrs and not scal:
            return self.x_rfor(sc)
        name = self.fresh("r")
        self.xref_names.add(name)
        if arrs and (not scal or self.chance(0.6)):
            a = self.pick(arrs)
            what = Ref(a.name, [self.index_into(sc, a.dims[0])])
        else:
            what = Ref(self.pick(scal)[0])
        out = [Decl("%s& %s = %s;", "T", name, what)]
        sc.fs.append((name, VMAG, True))
        op = self.pick(["=", "+=", "*="])
        first = Line("%s %s %s;", name, op, self.rhs(sc, op))
        if op == "=" and self.chance(0.5):
            first = Line("%s = %s;", name, Math("tanh", [Bin("+", Ref(name), self.fexpr(sc, 1))], self.style(), 1.0))
        out.append(first)
        out += self.block(sc, self.r.randint(0, 2))
        if self.chance(0.5):
            out += self.acc_line(sc, Bin("*", Ref(name), self.var_leaf(sc)), avoid=(name,))
        return out

    def x_cref(self, sc):
        """`const T& c = a[i];` (an alias: a write to a[i] is seen through c), or of a scalar local."""
        arrs = [a for a in sc.arrs if len(a.dims) == 1 and not a.glob and a.base is None]
        scal = self.ref_scalars(sc)
        name = self.fresh("c")
        self.xref_names.add(name)
        if scal and self.chance(0.2):
            what = Ref(self.pick(scal)[0])
        else:
            a = self.pick(arrs)
            what = Ref(a.name, [self.index_into(sc, a.dims[0])])
        out = [Decl("const %s& %s = %s;", "T", name, what)]
        sc.fs.append((name, VMAG, False))
        out += self.block(sc, self.r.randint(0, 2))
        out += self.acc_line(sc, Bin("*", Ref(name), self.var_leaf(sc)))
        return out

    def x_rfor(self, sc):
        """for (T v : a) / for (T& v : a) / for (const T& v : a) over a local 1-D array."""
        r = self.r
        out = []
        locs = [a for a in sc.arrs if not a.pointer and not a.glob and len(a.dims) == 1 and isinstance(a.dims[0], int)]
        if not locs or self.chance(0.25):
            n = r.randint(2, 4)
            name = self.fresh("ar")
            items = InitList([self.squash_to(self.fexpr(sc, r.randint(0, 1)), VMAG) for _ in range(n)])
            out.append(Decl("%s %s[%d] = {%s};", "T", name, n, items))
            a = FArr(name, [n], True, False)
            sc.arrs.append(a)
        else:
            a = self.pick(locs)
        mode = self.pick(["", "&", "const&"])
        v = self.fresh("v")
        self.xref_names.add(v)
        inner = Scope(sc)
        inner.loop += 1
        inner.fs.append((v, VMAG, mode != "const&"))
        body = self.block(inner, r.randint(0, 2)) if inner.loop <= self.max_loop else []
        if mode == "&":
            op = self.pick(["=", "*=", "+="])
            rr = Math("tanh", [Bin("+", Ref(v), self.fexpr(inner, 1))], self.style(), 1.0) if op == "=" else self.rhs(inner, op)
            body.append(Line("%s %s %s;", v, op, rr))
        else:
            body += self.acc_line(inner, Bin("*", Ref(v), self.var_leaf(inner)), avoid=(v,))
        head = "for (const %s& %s : %s) {" if mode == "const&" else "for (%s" + mode + " %s : %s) {"
        out.append(Block(head, body, "}", ("T", v, a.name)))
        if mode == "&":  # read what the loop wrote
            out += self.acc_line(sc, Bin("*", Ref(a.name, [IV(str(r.randrange(a.dims[0])))]), self.var_leaf(sc)))
        return out

    def x_enum(self, sc):
        """kN_E md = cond ? kN_E::A : kN_E::B; if (md == kN_E::A) ... (or the `mode` parameter)."""
        E = "%s_E" % self.name
        out = []
        if self.xmode and self.chance(0.5):
            var = "mode"
        else:
            var = self.fresh("md")
            a, b = self.r.sample(["A", "B", "C"], 2)
            out.append(Decl("%s %s = %s ? %s::%s : %s::%s;", E, var, self.cond(sc), E, a, E, b))
        c = Cmp(self.pick(["==", "!="]), IV(var), IV("%s::%s" % (E, self.pick(["A", "B", "C"]))), False)
        then = self.block(Scope(sc), self.r.randint(1, 2)) or [self.safe_assign(sc)]
        els = self.block(Scope(sc), self.r.randint(1, 2)) if self.chance(0.4) else None
        return out + [If(c, then, els)]

    def x_cexpr(self, sc):
        """constexpr int helpers in a namespace: a loop bound or an index."""
        ns = "%s_ns" % self.name
        arrs = [a for a in sc.arrs if len(a.dims) == 1 and isinstance(a.dims[0], int) and a.dims[0] >= 2]
        if arrs and (sc.loop >= self.max_loop or self.chance(0.5)):
            a = self.pick(arrs)
            k = self.r.randrange(a.dims[0] - 1)
            e = Bin("*", Ref(a.name, [IV("%s::next(%d)" % (ns, k))], glob=a.glob), self.var_leaf(sc))
            return self.acc_line(sc, e)
        if sc.loop >= self.max_loop:
            return []
        i = self.fresh("i")
        K = self.r.randint(1, 2)
        inner = Scope(sc)
        inner.loop += 1
        inner.ints.append(IVar(i, 0, 2 * K - 1))
        body = self.block(inner, self.r.randint(1, 2)) or [self.safe_assign(inner)]
        return [Block("for (int %s = 0; %s < %s::twice(%d); ++%s) {", body, "}", (i, i, ns, K, i))]

    # helpers with reference parameters
    def lvalues(self, sc):
        """(node, var, buf, const index) of writable scalars and 1-D elements (for T& arguments)."""
        out = []
        pn = self.param_names()
        for v in sc.fs:
            if v[2] and (v[0] not in pn or v[0] == "ra") and v[0] not in self.global_names \
                    and v[0] not in self.xref_names:
                out.append((Ref(v[0]), v[0], None, None))
        for a in sc.arrs:
            if len(a.dims) == 1 and a.writable and not a.glob and a.base is None:
                idx = self.index_into(sc, a.dims[0])
                ci = int(idx.s) if isinstance(idx, IV) and idx.s.isdigit() else None
                out.append((Ref(a.name, [idx]), None, a.name, ci))
        return out

    def x_xcall(self, sc):
        """A call of a helper with T& / const T& parameters: distinct lvalues for the T& ones."""
        h = self.pick(self.xhelpers)
        lv = self.lvalues(sc)
        args = [None] * len(h.params)
        used = []

        def clash(l, u, cref):
            if l[1] is not None and l[1] == u[1]:
                return True
            if l[2] is not None and l[2] == u[2]:
                return cref or l[3] is None or u[3] is None or l[3] == u[3]
            return False

        for k, (kind, _) in enumerate(h.params):
            if kind == "ref":
                cands = [l for l in lv if not any(clash(l, u, False) for u in used)]
                if not cands:
                    return []
                l = self.pick(cands)
                used.append(l)
                args[k] = l[0]
        theta = self.squash_to(self.fexpr(sc, 1), VMAG)
        busy = {u[1] for u in used} | {u[2] for u in used}
        # A const T& argument is built from variables the call does not take by
        # reference: one that is such a variable itself aliases it (refused).
        free = Scope(sc)
        free.level, free.loop = sc.level, sc.loop
        free.fs = [v for v in sc.fs if v[0] not in busy]
        free.arrs = [a for a in sc.arrs if a.name not in busy]
        for k, (kind, pname) in enumerate(h.params):
            if kind == "cref":
                cands = [l for l in lv + [(Ref(a.name, [self.index_into(sc, a.dims[0])]), None, a.name, None)
                                          for a in sc.arrs if len(a.dims) == 1 and not a.writable and not a.glob]
                         if not any(clash(l, u, True) for u in used)]
                args[k] = self.pick(cands)[0] if cands and self.chance(0.6) else self.squash_to(self.fexpr(free, 1), VMAG)
            elif kind == "T":
                if h.rot:
                    args[k] = Math("cos" if pname == "c" else "sin", [theta], self.style(), 1.0)
                else:
                    args[k] = self.squash_to(self.fexpr(sc, 1), VMAG)
        call = Call(h.name, args, mag=h.mag, helper=h)
        call.explicit = self.chance(0.5)
        if h.kind == "void":
            return [Line("%s;", call)]
        for _ in range(3):
            t = self.target(sc)
            if t is not None and t.name not in busy:
                return [Line("%s %s %s;", t, self.pick(["=", "+="]), Bin("*", Lit(self.const(0.2, 0.6)), call))]
        name = self.fresh("t")
        return [Decl("%s %s = %s;", "T", name, call)]

    def make_xhelper(self, j):
        """A helper with reference parameters: rotate(T& a, T& b, T c, T s), update(T& a, const T& s),
        or T step(T& a, const T& s, T w)."""
        r = self.r
        name = "%s_r%d" % (self.name, j)
        kind = self.pick(["rot", "upd", "val"])
        scope = Scope()
        self.in_helper = True
        self.max_loop = 1
        self.runtime_bounds = set()
        if kind == "rot":
            params = [("ref", "a"), ("ref", "b"), ("T", "c"), ("T", "s")]
            t = self.fresh("t")
            body = [Decl("%s %s = %s;", "T", t, Bin("-", Bin("*", Ref("c"), Ref("a")), Bin("*", Ref("s"), Ref("b")))),
                    Line("b = %s;", Bin("+", Bin("*", Ref("s"), Ref("a")), Bin("*", Ref("c"), Ref("b")))),
                    Line("a = %s;", Ref(t))]
            h = Helper(name, "void", params)
        else:
            self.fn_ret = "void" if kind == "upd" else "T"
            params = [("ref", "a"), ("cref", "s")] + ([("T", "w")] if kind == "val" else [])
            if kind == "upd" and "void_cref" in AVOID:
                params = [("ref", "a"), ("T", "s")]
            if self.chance(0.3):
                params = params[1:2] + params[0:1] + params[2:]
            for _, p in params:
                scope.fs.append((p, VMAG, p == "a"))
            body = self.block(scope, r.randint(0, 2))
            upd = self.squash_to(self.fexpr(scope, 1), VMAG)
            body.append(Line("a = %s;", Math("tanh", [Bin("+", Bin("*", Lit(self.const(0.3, 0.7)), Ref("a")), upd)],
                                               self.style(), 1.0)))
            if kind == "val":
                body.append(Line("return %s;", self.squash_to(self.ret_expr(scope), 4.0)))
            h = Helper(name, "void" if kind == "upd" else "value", params)
        h.rot = kind == "rot"
        h.mag = 4.0
        if self.xtmpl and self.chance(0.5):
            h.tmpl = "T"
        return h, (self.pick(["static ", "", "inline "]), params), body

    def extras_helpers(self):
        """After the helpers of the first stream: template flags, helpers with references."""
        x = self.r2
        for h in self.helpers:
            if self.xtmpl and x.random() < 0.6:
                h.tmpl = x.choice(["T", "Tm", "mT"]) if any(k == "m" for k, _ in h.params) else "T"
        for j in range(self.nxh):
            with self.alt(x.randint(1, 3)):
                hd = self.make_xhelper(j)
            self.xhelpers.append(hd[0])
            self.xhelper_defs.append(hd)

    def extras_params(self, params, scope):
        """After the first stream's parameters: `T& ra` (wrt, like io), `kN_E mode`, `const T&` scalars."""
        x = self.r2
        if self.xref_param:
            params.insert(x.randint(0, len(params)), ("ref", "ra", 1))
            wrt = set(self.wrt) | {"ra"}
            self.wrt = [n for _, n, _ in params if n in wrt]
        if self.xenum and x.random() < 0.5:
            self.xmode = x.choice(["A", "B", "C"])
            params.insert(x.randint(0, len(params)), ("mode", "mode", None))
        written = {v[0] for v in scope.fs if v[2]}
        for kind, name, _ in params:
            if kind == "T" and x.random() < self.xcref_p and name not in written:
                self.xcref.add(name)

    def prelude(self):
        """Lines before the helpers (also in main.cpp, before the kernel's declarations)."""
        out = self.struct_defs(self.T) if self.sdefs else []
        if self.lpass:
            out += self.lambda_templates()
        if self.xenum:
            out.append("enum class %s_E { A, B, C };" % self.name)
        if self.xconstexpr:
            out.append("namespace %s_ns {" % self.name)
            out.append("constexpr int twice(int k) { return 2 * k; }")
            out.append("constexpr int next(int k) { return k + 1; }")
            out.append("}  // namespace %s_ns" % self.name)
        return out

    def body_prelude(self):
        out = [Line("using std::%s;", f) for f in self.xusing]
        if self.xconstexpr:
            out.append(Line("static_assert(%s_ns::twice(2) == 4 && %s_ns::next(1) == 2, \"%s\");",
                            self.name, self.name, self.name))
        return out

    def xcallnode(self, h, args, mag):
        """A Call of h; whether a template helper's call names T is drawn from the second stream."""
        c = Call(h.name, args, mag=mag, helper=h)
        if self.xtmpl:  # (the fourth stream's calls draw from it)
            c.explicit = (self.r if self.lam or self.cont else self.r2).random() < 0.5
        return c

    # -- structs, drawn from a third random stream
    #
    # Struct types kN_V { T x, y, z; methods } and kN_B { kN_V pos; kN_V vel{}; T mass = 1.0;
    # T hist[3] = {...}; [int id = 2;] }, helpers taking them, struct locals and kernel parameters.
    # Every decision about them is drawn from self.r3 (random.Random(seed * 104729 + 71)) in alt(...,
    # self.r3), so that the first and second streams draw what they drew before (a seed's kernel
    # is its old kernel with struct code inserted). They are generated in the kernel only (not in
    # helpers), and r2's snippets never see the struct variables.
    def init_structs(self):
        z = self.r3 = random.Random(self.seed * 104729 + 71)
        self.salt = False
        self.ycounter = 0
        self.sdefs = z.random() < 0.45  # this kernel has struct types (and their helpers)
        self.srate = z.choice([0.1, 0.2, 0.3]) if self.sdefs else 0.0
        self.sid = z.random() < 0.5  # kN_B has an int member (no adjoint)
        self.sparams = []  # (kind, name, type) of struct kernel parameters
        # Operators and functions returning structs come from a stream of their own, so that
        # kernels without them keep the code they had (seeds whose r6 says no draw nothing more).
        z6 = self.r6 = random.Random(self.seed * 32452843 + 41)
        self.sops = self.sdefs and z6.random() < 0.6

    # ---------------------------------------------------------------- template kernels
    # An eighth stream, random.Random(seed * 67867967 + 59), makes about 30% of the kernels a
    # function template `template <int Z>` with the explicit instantiation kN<1>; Z is one of
    # the kernel's integer values (scope.ints), a constant 1 in the twins. Only kernels it
    # makes templates change.
    def init_template_kernel(self):
        self.ktmpl = random.Random(self.seed * 67867967 + 59).random() < 0.3
        # A ninth stream, random.Random(seed * 86028121 + 61), moves the counter of `while`
        # loops into their condition (`while (i++ < K)`): in two kernels of three, 60% or 90%
        # of their `while` loops.
        self.r9 = random.Random(self.seed * 86028121 + 61)
        self.cinc = self.r9.choice([0.0, 0.6, 0.9])

    def template_args(self):
        return "<1>" if self.ktmpl else ""

    # ---------------------------------------------------------------- lambdas
    # Lambdas in the kernel (not in helpers): captureless ones, `[&]` ones that read the
    # kernel's variables or add into one of them, `[=]` ones over its scalars, generic ones,
    # ones called where they are written, called once or in a loop. Every decision is drawn
    # from self.r4 (random.Random(seed * 15485863 + 29)) in alt(..., self.r4), with names of
    # their own (fl1, il2), so that the other three streams draw what they drew before.
    # Whether a call goes through a function template that takes the lambda (by value, by
    # `const F&`, by `F&&` passed on to another template: the prelude's kN_apply, kN_each,
    # kN_twice) is drawn from self.r7 alone, so that the lambdas themselves stay as drawn.
    def init_lambdas(self):
        w = self.r4 = random.Random(self.seed * 15485863 + 29)
        self.lam = False
        self.lcounter = 0
        self.lrate = w.choice([0.0, 0.0, 0.1, 0.15, 0.25])  # chance of a lambda after a statement
        self.r7 = random.Random(self.seed * 49979687 + 53)
        self.lpass = self.lrate > 0 and self.r7.random() < 0.5  # lambdas passed to templates

    def lvia(self, value=True):
        """The function template a lambda call goes through (None: called directly)."""
        if not self.lpass:
            return None
        if value:
            return self.r7.choice([None, self.name + "_apply", self.name + "_twice"])
        return self.r7.choice([None, self.name + "_each"])

    def lcall(self, name, arg):
        via = self.lvia()
        return LCall(name, [arg], 13.5 if via and via.endswith("_twice") else 9.0, via)

    def lambda_templates(self):
        """The function templates that lambdas are passed to (generic in the value type)."""
        n = self.name
        return [
            "template <class F, class V> V %s_apply(F f, V v) { return f(v); }" % n,
            "template <class F, class V> void %s_each(const F &f, V v) {" % n,
            "  f(v);",
            "  f(v * V(0.5));",
            "}",
            "template <class F, class V> V %s_twice(F &&f, V v) {" % n,
            "  return %s_apply(f, v) * V(0.5) + f(v * V(0.5));" % n,
            "}"]

    def lambda_snippet(self, scope):
        with self.alt(self.r4.randint(1, 2), self.r4):
            self.lam = True
            try:
                sc = Scope(scope)
                sc.level, sc.loop = scope.level, scope.loop
                sc.arrs = [a for a in sc.arrs if len(a.dims) == 1]  # lambdas capture 1-D arrays only
                arr1 = [a for a in sc.arrs if len(a.dims) == 1 and isinstance(a.dims[0], int) and a.base is None]
                kinds = [(3, "pure"), (4, "acc"), (4, "reads"), (2 if arr1 else 0, "idx"),
                         (2 if sc.fs else 0, "byval"), (2, "now")]
                out = getattr(self, "l_" + self.wpick(kinds))(sc)
            finally:
                self.lam = False
        return [Block("{", out, "}")] if out else []  # its own scope (a switch case may hold it)

    def lparam(self, cref=True):
        """The lambda's parameter type. Not `const T&` for a lambda that writes what it captures:
        given that variable, it would be refused (cgp-ad cannot keep the two names apart)."""
        return Spelled(self.pick(["T", "T", "auto"] + (["const T&"] if cref else [])))

    def lcalls(self, sc, call):
        """Calls of a lambda (call(scope) -> the statements of one call), once or in a loop."""
        if sc.loop < self.max_loop and self.chance(0.5):
            i = self.fresh("i")
            K = self.r.randint(2, 3)
            inner = Scope(sc)
            inner.loop += 1
            inner.ints.append(IVar(i, 0, K - 1))
            return [Block("for (int %s = 0; %s < %d; ++%s) {", call(inner), "}", (i, i, K, i))]
        out = []
        for _ in range(self.r.randint(1, 2)):
            out += call(sc)
        return out

    def larg(self, sc):
        return self.squash_to(self.fexpr(sc, self.r.randint(0, 2)), VMAG)

    def l_pure(self, sc):
        """auto fl = [](T lx) { return e(lx); }; tgt += c * tanh(fl(arg));"""
        name = self.fresh("f")
        own = Scope()
        own.fs = [("lx", VMAG, False)]
        e = self.squash_to(self.fexpr(own, self.r.randint(1, 3)), VMAG)
        out = [Line("auto %s = [](%s lx) { return %s; };", name, self.lparam(), e)]
        return out + self.lcalls(sc, lambda s: self.acc_line(s, self.lcall(name, self.larg(s))))

    def l_acc(self, sc):
        """auto fl = [&](T lx) { tgt += c * tanh(lx * e); }; fl(arg);"""
        t = self.target(sc)
        if t is None:
            return []
        name = self.fresh("f")
        e = Bin("*", Ref("lx"), self.fexpr(sc, self.r.randint(0, 2)))
        body = Spelled("%s += %s;", t, Bin("*", Lit(self.const(0.1, 0.4)), Math("tanh", [e], self.style(), 1.0)))
        out = [Line("auto %s = [&](%s lx) { %s };", name, self.lparam(cref=False), body)]
        return out + self.lcalls(sc, lambda s: [Line("%s;", LCall(name, [self.larg(s)], via=self.lvia(False)))])

    def l_reads(self, sc):
        """auto fl = [&](T lx) { return lx * e; }; tgt += c * tanh(fl(arg));"""
        name = self.fresh("f")
        e = Bin("*", Ref("lx"), self.fexpr(sc, self.r.randint(1, 2)))
        out = [Line("auto %s = [&](%s lx) { return %s; };", name, self.lparam(), e)]
        return out + self.lcalls(sc, lambda s: self.acc_line(s, self.lcall(name, self.larg(s))))

    def l_idx(self, sc):
        """auto fl = [&](int lk) { return a[lk] * e; }; for (...) tgt += c * tanh(fl(il));"""
        a = self.pick([a for a in sc.arrs if len(a.dims) == 1 and isinstance(a.dims[0], int) and a.base is None])
        name = self.fresh("f")
        e = Bin("*", Ref(a.name, [IV("lk")], glob=a.glob), self.fexpr(sc, self.r.randint(0, 1)))
        out = [Line("auto %s = [&](int lk) { return %s; };", name, e)]
        i = self.fresh("i")
        inner = Scope(sc)
        inner.loop += 1
        inner.ints.append(IVar(i, 0, a.dims[0] - 1))
        body = self.acc_line(inner, LCall(name, [IV(i)]))
        return out + [Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (i, i, a.dims[0], i))]

    def l_byval(self, sc):
        """auto fl = [=](T lx) { return lx * e; }; over scalars, which may change before a call."""
        own = Scope(sc)
        own.arrs = []
        name = self.fresh("f")
        e = Bin("*", Ref("lx"), self.fexpr(own, self.r.randint(1, 2)))
        out = [Line("auto %s = [=](%s lx) { return %s; };", name, self.lparam(), e)]
        if self.chance(0.5):
            out += self.acc_line(sc, self.var_leaf(sc))  # a captured scalar may change here
        return out + self.lcalls(sc, lambda s: self.acc_line(s, self.lcall(name, self.larg(s))))

    def l_now(self, sc):
        """tgt += c * tanh([&](T lx) { return lx * e; }(arg));"""
        e = Bin("*", Ref("lx"), self.fexpr(sc, self.r.randint(1, 2)))
        return self.acc_line(sc, LNow(self.lparam(), e, self.larg(sc), self.lvia()))

    # ---------------------------------------------------------------- complex numbers
    # std::complex<T> locals (a sixth stream, self.r6 = random.Random(seed * 15485863 + 29)):
    # declared from bounded parts or polar forms, updated (rotations by polar(1, e), contractions
    # z = 0.5 z + c, divisions by numbers or complex numbers of modulus >= 1.5, conj, setters),
    # also in later statements and loops of the block that declares them, and read back into the
    # kernel's scalars through real, imag, norm, abs, arg and comparisons of real values. Every
    # complex expression has a bound on its modulus (CNode.mag), kept below 3 by scaling, and the
    # functions stay off their branch cuts and poles: log, sqrt and pow take 3 + z with |z| <= 2,
    # tan and tanh arguments of modulus below 1. Names: zq1, ...; the locals live in Scope.cx.
    def init_complex(self):
        q = self.r6 = random.Random(self.seed * 15485863 + 29)
        self.cplx = False  # generating this stream's code
        self.qcounter = 0
        on = q.random() < 0.3
        self.qrate = q.choice([0.1, 0.15, 0.25]) if on else 0.0

    def complex_snippet(self, scope):
        with self.alt(self.r6.randint(1, 3), self.r6):
            self.cplx = True
            try:
                sc = Scope(scope)
                sc.level, sc.loop = scope.level, scope.loop
                kinds = [(4, "decl"), (4 if sc.cx else 0, "update"), (5 if sc.cx else 0, "read"),
                         (2 if sc.cx and sc.loop < self.max_loop else 0, "loop"),
                         (2 if sc.cx else 0, "branch")]
                k = self.wpick(kinds)
                out = getattr(self, "q_" + k)(sc)
                if k == "decl":
                    scope.cx.append(sc.cx[-1])  # seen by the rest of the block
                return out
            finally:
                self.cplx = False

    def cnum(self, sc, depth):
        """A complex expression (CNode) of modulus at most 3."""
        r = self.r
        ct = "std::complex<T>"
        if depth <= 0 or r.random() < 0.3:
            k = self.wpick([(4 if sc.cx else 0, "var"), (3, "parts"), (2, "polar"), (1, "real")])
            if k == "var":
                return CNode("%s", [IV(self.pick(sc.cx))], 2.0)
            if k == "parts":
                return CNode(ct + "(%s, %s)", [Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0),
                                               Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)], 1.5)
            if k == "polar":
                rho = self.const(0.3, 1.8)
                return CNode("std::polar(%s, %s)", [Lit(rho), self.fexpr(sc, 1)], rho)
            return CNode(ct + "(%s)", [Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)], 1.0)
        d = depth - 1
        k = self.wpick([(4, "add"), (2, "sub"), (4, "mul"), (2, "scale"), (3, "div"), (2, "cdiv"), (1, "neg"),
                        (1, "conj"), (2, "exp"), (2, "log"), (2, "sqrt"), (2, "pow"), (2, "trig")])
        a = self.cnum(sc, d)
        if k in ("add", "sub", "mul"):
            b = self.cnum(sc, d)
            op = {"add": "+", "sub": "-", "mul": "*"}[k]
            mag = a.mag * b.mag if k == "mul" else a.mag + b.mag
            return self.csquash(CNode("(%s " + op + " %s)", [a, b], mag))
        if k == "scale":  # a real number on either side
            e = Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)
            return CNode("(%s * %s)", [e, a] if self.chance(0.5) else [a, e], a.mag)
        if k == "div":  # by a real number of modulus >= 1.5
            e = self.fexpr(sc, 1)
            return CNode("(%s / (%s + %s * %s))", [a, Lit(1.5), e, e], a.mag / 1.5)
        if k == "cdiv":  # by a complex number of modulus >= 1.5, or a real one by a complex one
            v = self.var_leaf(sc)
            den = CNode(ct + "(%s + %s * %s, %s)", [Lit(1.5), v, v,
                                                    Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)], 9.0)
            if self.chance(0.3):
                return CNode("(%s / %s)", [Lit(self.const(0.5, 1.5)), den], 1.0)
            return CNode("(%s / %s)", [a, den], a.mag / 1.5)
        if k == "neg":
            return CNode("(-%s)", [a], a.mag)
        if k == "conj":
            return CNode("std::conj(%s)", [a], a.mag)
        a = self.csquash(a, 2.0)
        if k == "exp":
            return CNode("std::exp(%s)", [a], math_exp(a.mag))
        if k == "log":
            return CNode("std::%s(%s + %s)" % (self.pick(["log", "log", "log10"]), "%s", "%s"), [Lit(3.0), a], 3.3)
        if k == "sqrt":
            return CNode("std::sqrt(%s + %s)", [Lit(3.0), a], 2.3)
        if k == "pow":
            form = self.pick(["int", "real", "complex", "realbase"])
            if form == "int":
                return self.csquash(CNode("std::pow(%s, 2)", [a], a.mag * a.mag))
            if form == "real":
                return CNode("std::pow(%s + %s, %s)", [Lit(3.0), a, Lit(self.const(0.3, 1.5))], 5.0)
            if form == "complex":
                s_ = self.csquash(self.cnum(sc, 0), 0.5)
                return self.csquash(CNode("std::pow(%s + %s, %s)", [Lit(3.0), a, s_], 5.0))
            return self.csquash(CNode("std::pow(%s, %s)", [Lit(self.const(0.5, 2.5)), self.csquash(a, 1.0)], 5.0))
        fn = self.pick(["sin", "cos", "sinh", "cosh", "tan", "tanh"])
        if fn in ("tan", "tanh"):
            return CNode("std::%s(%s)" % (fn, "%s"), [self.csquash(a, 0.8)], 1.3)
        return CNode("std::%s(%s)" % (fn, "%s"), [a], 3.8)

    def csquash(self, a, bound=3.0):
        """a scaled so that its modulus is at most bound."""
        if a.mag <= bound:
            return a
        return CNode("(%s * %s)", [Lit(round(bound / a.mag, 4)), a], bound)

    def creal(self, sc, z):
        """A real number read from the complex local z (|z| <= 2)."""
        k = self.pick(["real", "imag", "freal", "fimag", "norm", "abs", "arg"])
        if k in ("real", "imag"):
            return CNode("%s.%s()" % (z, k), [], 2.0)
        if k in ("freal", "fimag"):
            return CNode("std::%s(%s)" % (k[1:], z), [], 2.0)
        if k == "norm":
            return CNode("std::norm(%s)" % z, [], 4.0)
        return CNode("std::%s(%s + %s)" % (k, z, "%s"), [Lit(3.0)], 5.0)

    def q_decl(self, sc):
        name = self.fresh("z")
        e = self.csquash(self.cnum(sc, self.r.randint(1, 3)), 2.0)
        sc.cx.append(name)
        return [Decl("std::complex<%s> %s = %s;", "T", name, e)]

    def q_update(self, sc):
        z = self.pick(sc.cx)
        k = self.pick(["rotate", "contract", "rdiv", "cdiv", "conj", "setter", "scale"])
        if k == "rotate":
            return [Line("%s *= std::polar(%s, %s);", z, Lit(1.0), self.fexpr(sc, 1))]
        if k == "contract":
            return [Line("%s = %s * %s + %s;", z, Lit(0.5), z, self.csquash(self.cnum(sc, 1), 1.0))]
        if k == "rdiv":
            e = self.fexpr(sc, 1)
            return [Line("%s /= %s + %s * %s;", z, Lit(1.5), e, e)]
        if k == "cdiv":
            return [Line("%s /= std::complex<%s>(%s, %s);", z, "T", Lit(1.5),
                         Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0))]
        if k == "conj":
            return [Line("%s = std::conj(%s);", z, z)]
        if k == "setter":
            part = self.pick(["real", "imag"])
            return [Line("%s.%s(%s * %s.%s() + %s * %s);", z, part, Lit(0.5), z, part, Lit(0.5),
                         Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0))]
        return [Line("%s *= %s;", z, Lit(self.const(0.3, 0.9)))]

    def q_read(self, sc):
        z = self.pick(sc.cx)
        return self.acc_line(sc, Bin("*", self.creal(sc, z), self.var_leaf(sc)))

    def q_loop(self, sc):
        """A short loop that rotates and contracts a complex local and reads it back."""
        z = self.pick(sc.cx)
        i = self.fresh("i")
        n = self.r.randint(2, 4)
        inner = Scope(sc)
        inner.loop = sc.loop + 1
        inner.ints.append(IVar(i, 0, n - 1))
        body = [Line("%s = %s * %s + %s;", z, Lit(0.6), z, self.csquash(self.cnum(inner, 1), 0.8))]
        body += self.acc_line(inner, Bin("*", self.creal(inner, z), self.var_leaf(inner)))
        return [Block("for (int %s = 0; %s < %d; ++%s) {" % (i, i, n, i), body)]

    def q_branch(self, sc):
        """A branch on a real number read from a complex local."""
        z = self.pick(sc.cx)
        cond = Cmp("<", CNode("std::norm(%s)" % z, [], 4.0), Lit(self.const(0.5, 2.0)), True)
        then = [Line("%s *= std::polar(%s, %s);", z, Lit(1.0), self.fexpr(sc, 1))]
        els = [Line("%s = %s * %s;", z, Lit(0.5), z)]
        return [If(cond, then, els)]

    # ---------------------------------------------------------------- Eigen matrices
    # Eigen::Matrix<T, 3, 1> and Eigen::Matrix<T, 3, 3> locals (a twelfth stream, self.r12 =
    # random.Random(seed * 32452843 + 7), only with run.py --eigen): declared from bounded
    # coefficients (a constructor of three, a comma initialiser of nine, Identity() plus a scaled
    # matrix), updated (+=, scaling, a coefficient or a column assigned, a product by a matrix),
    # also in loops, and read back into the kernel's scalars through dot, norm, squaredNorm, sum,
    # coefficients, cross products, determinants, traces and 1x1 products. Every expression has a
    # bound on the modulus of its coefficients (ENode.mag), kept below 3 by scaling; norms are of
    # 1 + v.squaredNorm(), away from the kink at 0. Names: ve1, me2, ...; the locals live in Scope.ev.
    def init_eigen(self):
        e = self.r12 = random.Random(self.seed * 32452843 + 7)
        self.eig = False  # generating this stream's code
        self.ecounter = 0
        on = EIGEN and e.random() < 0.3
        self.erate = e.choice([0.1, 0.2, 0.3]) if on else 0.0
        self.uses_eigen = False

    def eigen_snippet(self, scope):
        with self.alt(self.r12.randint(1, 3), self.r12):
            self.eig = True
            self.uses_eigen = True
            try:
                sc = Scope(scope)
                sc.level, sc.loop = scope.level, scope.loop
                kinds = [(4, "decl"), (4 if sc.ev else 0, "update"), (6 if sc.ev else 0, "read"),
                         (2 if sc.ev and sc.loop < self.max_loop else 0, "loop")]
                k = self.wpick(kinds)
                out = getattr(self, "e_" + k)(sc)
                if k == "decl":
                    scope.ev.append(sc.ev[-1])  # seen by the rest of the block
                return out
            finally:
                self.eig = False

    def etanh(self, sc):
        return Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0)

    def esquash(self, a, bound=2.0):
        if a.mag <= bound:
            return a
        return ENode("(%s * %s)", [Lit(round(bound / a.mag, 4)), a], bound)

    def evec(self, sc, depth):
        """A 3-vector expression."""
        vs = [n for n, rows in sc.ev if rows == 1]
        ms = [n for n, rows in sc.ev if rows == 3]
        if depth <= 0 or self.r.random() < 0.3:
            if vs and self.chance(0.6):
                return ENode("%s", [IV(self.pick(vs))], 2.0)
            if ms and self.chance(0.3):
                return ENode("%s.col(%d)" % (self.pick(ms), self.r.randint(0, 2)), [], 2.0)
            return ENode("Eigen::Matrix<T, 3, 1>(%s, %s, %s)", [self.etanh(sc) for _ in range(3)], 1.0)
        d = depth - 1
        k = self.wpick([(4, "add"), (2, "sub"), (3, "scale"), (3 if ms else 0, "matvec"), (2, "cross"),
                        (2, "cwise"), (1, "neg"), (2, "array")])
        a = self.evec(sc, d)
        if k in ("add", "sub"):
            b = self.evec(sc, d)
            return self.esquash(ENode("(%s " + ("+" if k == "add" else "-") + " %s)", [a, b], a.mag + b.mag))
        if k == "scale":
            c = self.etanh(sc)
            return ENode("(%s * %s)", [c, a] if self.chance(0.5) else [a, c], a.mag)
        if k == "matvec":
            m = self.pick(ms)
            return self.esquash(ENode("(%s * %s)" % (m, "%s"), [a], 3 * 2.0 * a.mag))
        if k == "cross":
            b = self.evec(sc, d)
            return self.esquash(ENode("%s.cross(%s)", [a, b], 2 * a.mag * b.mag))
        if k == "cwise":
            b = self.evec(sc, d)
            return self.esquash(ENode("%s.cwiseProduct(%s)", [a, b], a.mag * b.mag))
        if k == "neg":
            return ENode("(-%s)", [a], a.mag)
        fn = self.pick(["tanh", "sin", "cos"])
        return ENode("%s.array().%s().matrix()" % ("%s", fn), [a], 1.0)

    def emat(self, sc, avoid=None):
        """A 3x3 matrix expression: a local, Identity() plus a scaled one, a transpose (never of
        `avoid`, the matrix being assigned: Eigen itself would read coefficients it has already
        written), a product."""
        ms = [n for n, rows in sc.ev if rows == 3]
        ts = [n for n in ms if n != avoid]
        k = self.wpick([(4 if ms else 0, "var"), (2 if ts else 0, "t"), (2 if ms else 0, "prod"), (1, "ident")])
        if k == "var":
            return ENode("%s", [IV(self.pick(ms))], 2.0)
        if k == "t":
            return ENode("%s.transpose()" % self.pick(ts), [], 2.0)
        if k == "prod":
            return ENode("(0.15 * %s)", [ENode("(%s * %s)" % (self.pick(ms), self.pick(ms)), [], 12.0)], 1.8)
        return ENode("(Eigen::Matrix<T, 3, 3>::Identity() + %s * %s)",
                     [Lit(self.const(0.1, 0.4)), ENode("%s", [IV(self.pick(ms))], 2.0) if ms else
                      ENode("Eigen::Matrix<T, 3, 3>::Ones()", [], 1.0)], 1.8)

    def e_decl(self, sc):
        if self.chance(0.6):
            name = self.fresh("v")
            e = self.esquash(self.evec(sc, self.r.randint(1, 3)), 2.0)
            sc.ev.append((name, 1))
            return [Decl("Eigen::Matrix<%s, 3, 1> %s = %s;", "T", name, e)]
        name = self.fresh("m")
        sc.ev.append((name, 3))
        if self.chance(0.5) or not [n for n, r in sc.ev if r == 3 and n != name]:
            coeffs = ", ".join(["%s"] * 9)
            return [Decl("Eigen::Matrix<%s, 3, 3> %s;", "T", name),
                    Line("%s << " + coeffs + ";", name, *[self.etanh(sc) for _ in range(9)])]
        sc.ev.pop()
        e = self.emat(sc)
        sc.ev.append((name, 3))
        return [Decl("Eigen::Matrix<%s, 3, 3> %s = %s;", "T", name, e)]

    def e_update(self, sc):
        name, rows = self.pick(sc.ev)
        if rows == 1:
            k = self.pick(["add", "scale", "coeff", "contract", "segment"])
            if k == "add":
                return [Line("%s += %s;", name, self.esquash(self.evec(sc, 1), 0.5))]
            if k == "scale":
                return [Line("%s *= %s;", name, Lit(self.const(0.3, 0.9)))]
            if k == "coeff":
                return [Line("%s(%d) = %s;", name, self.r.randint(0, 2), self.etanh(sc))]
            if k == "segment":
                return [Line("%s.head<2>() *= %s;", name, Lit(self.const(0.3, 0.9)))]
            return [Line("%s = %s * %s + %s;", name, Lit(0.5), name, self.esquash(self.evec(sc, 1), 1.0))]
        k = self.pick(["col", "coeff", "scale", "add"])
        if k == "col":
            return [Line("%s.col(%d) = %s;", name, self.r.randint(0, 2), self.esquash(self.evec(sc, 1), 2.0))]
        if k == "coeff":
            return [Line("%s(%d, %d) = %s;", name, self.r.randint(0, 2), self.r.randint(0, 2), self.etanh(sc))]
        if k == "scale":
            return [Line("%s *= %s;", name, Lit(self.const(0.3, 0.9)))]
        return [Line("%s = %s * %s + %s * %s;", name, Lit(0.5), name, Lit(0.1), self.emat(sc, avoid=name))]

    def ereal(self, sc):
        """A number read from the Eigen locals (modulus at most about 10)."""
        vs = [n for n, rows in sc.ev if rows == 1]
        ms = [n for n, rows in sc.ev if rows == 3]
        kinds = [(3 if vs else 0, "dot"), (2 if vs else 0, "norm"), (2 if vs else 0, "sq"), (2 if vs else 0, "sum"),
                 (3 if vs else 0, "coeff"), (1 if vs else 0, "crossx"), (2 if ms else 0, "det"),
                 (2 if ms else 0, "trace"), (2 if ms else 0, "mcoeff"), (2 if ms and vs else 0, "quad")]
        k = self.wpick(kinds)
        if k == "dot":
            return ENode("%s.dot(%s)" % (self.pick(vs), "%s"), [self.esquash(self.evec(sc, 1), 2.0)], 12.0)
        if k == "norm":
            return ENode("std::sqrt(1 + %s.squaredNorm())" % self.pick(vs), [], 4.0)
        if k == "sq":
            return ENode("%s.squaredNorm()" % self.pick(vs), [], 12.0)
        if k == "sum":
            return ENode("%s.sum()" % self.pick(vs), [], 6.0)
        if k == "coeff":
            v = self.pick(vs)
            return ENode(self.pick(["%s(%d)", "%s[%d]"]) % (v, self.r.randint(0, 2)), [], 2.0)
        if k == "crossx":
            return ENode("%s.cross(%s).%s()" % (self.pick(vs), self.pick(vs), self.pick(["x", "y", "z"])), [], 8.0)
        if k == "det":
            return ENode("%s.determinant()" % self.pick(ms), [], 48.0)
        if k == "trace":
            return ENode("%s.trace()" % self.pick(ms), [], 6.0)
        if k == "mcoeff":
            return ENode("%s(%d, %d)" % (self.pick(ms), self.r.randint(0, 2), self.r.randint(0, 2)), [], 2.0)
        return ENode("(%s.transpose() * %s * %s).value()" % (self.pick(vs), self.pick(ms), self.pick(vs)), [], 36.0)

    def e_read(self, sc):
        e = self.ereal(sc)
        return self.acc_line(sc, Bin("*", ENode("(%s * %s)", [Lit(round(1.0 / e.mag, 4)), e], 1.0), self.var_leaf(sc)))

    def e_loop(self, sc):
        """A short loop that updates an Eigen vector and reads it back."""
        vs = [n for n, rows in sc.ev if rows == 1]
        i = self.fresh("i")
        n = self.r.randint(2, 4)
        inner = Scope(sc)
        inner.loop = sc.loop + 1
        inner.ints.append(IVar(i, 0, n - 1))
        if not vs:
            return self.e_read(sc)
        v = self.pick(vs)
        body = [Line("%s = %s * %s + %s;", v, Lit(0.6), v, self.esquash(self.evec(inner, 1), 0.8))]
        body += [Line("%s(%s %% 3) += %s * %s;", v, i, Lit(0.1), self.etanh(inner))]
        body += self.acc_line(inner, Bin("*", ENode("(%s * %s)", [Lit(0.25), self.ereal(inner)], 3.0),
                                         self.var_leaf(inner)))
        return [Block("for (int %s = 0; %s < %d; ++%s) {" % (i, i, n, i), body)]

    # ---------------------------------------------------------------- containers
    # std::vector and std::array (a fifth stream): kernel parameters (`const std::vector<T>&`,
    # `std::vector<T>&`, `std::vector<T>` by value, `std::array<T, N>` by value, `const&` and
    # `&`; wrt or not), helpers taking them, std::array locals (also declared in loop bodies,
    # nested ones), std::vector locals in the kernel and in helpers, in loops and branches too (sized
    # from run-time values, copies, braced lists), every element access form (`v[i]`, `at`,
    # `front`, `back`, `data()[i]`, `*(v.data() + k)`, range-for, pointers into `data()`, `&v[k]`
    # and `v.data() + k` passed to helpers), `size()`, `empty()`, `fill`, `a = b`, and scalar
    # locals passed as `&t` to pointer parameters. Every decision is drawn from self.r5
    # (random.Random(seed * 2750159 + 17)) in alt(..., self.r5), with names of their own (vc1,
    # jc2), so that the other four streams draw what they drew before. Containers are not in
    # Scope.arrs: the other streams never see them; only this code reads and writes them,
    # through self.cvars (the containers of the function being generated) and sc.cv.
    def init_containers(self):
        v = self.r5 = random.Random(self.seed * 2750159 + 17)
        self.cont = False  # generating this stream's code
        self.ccounter = 0
        on = v.random() < 0.45  # this kernel uses containers
        self.crate = v.choice([0.08, 0.12, 0.2]) if on else 0.0  # chance of a snippet after a statement
        self.cN = v.choice([2, 3, 4])  # the N of the kernel's std::arrays
        self.ncparams = v.choice([0, 1, 1, 2, 3]) if on else 0  # container parameters of the kernel
        self.nch = v.choice([0, 1, 1, 2]) if on else 0  # helpers with container parameters
        self.cparams = []  # (kind, name, length)
        self.cvars = []  # CVar: the containers of the function being generated
        self.chelpers = []  # Helper
        self.chelper_defs = []
        # A tenth stream, random.Random(seed * 122949829 + 67), adds standard algorithms over the
        # containers after some of this stream's snippets (std::accumulate, inner_product, fill,
        # fill_n, copy, copy_n), drawing nothing from the others: kernels without them are unchanged.
        self.ralgo = random.Random(self.seed * 122949829 + 67)
        self.arate = self.ralgo.choice([0.0, 0.3, 0.5]) if on else 0.0
        # An eleventh stream, random.Random(seed * 49979687 + 101), adds iterators held in
        # variables after some of this stream's snippets (loops from begin() to end() reading or
        # writing *it, a walk back from end() in a while loop, it + k, it[k], std::next, std::prev,
        # std::distance, it - begin()), drawing nothing from the others.
        self.riter = random.Random(self.seed * 49979687 + 101)
        self.irate = self.riter.choice([0.0, 0.2, 0.4]) if on else 0.0

    @contextlib.contextmanager
    def calt(self, budget):
        """This stream's code: alt() on self.r5, with its own names."""
        with self.alt(budget, self.r5):
            self.cont = True
            try:
                yield
            finally:
                self.cont = False

    def ctype(self, kind, T):
        """The container type of a parameter kind (no qualifiers): std::vector<T>, std::array<T, N>."""
        return ("std::vector<%s>" if kind.endswith("vec") else "std::array<%s, " + str(self.cN) + ">") % T

    def container_params(self, params):
        """After the other streams' parameters: vx0 / vy1 / ax2 / ay3 (y: in/out, always wrt)."""
        v = self.r5
        for j in range(self.ncparams):
            kind = v.choice(["cvec", "cvec", "vvec", "rvec", "rvec", "carr", "varr", "rarr"])
            vec = kind.endswith("vec")
            name = "%s%s%d" % ("v" if vec else "a", "y" if kind.startswith("r") else "x", j)
            n = v.randint(1, 6) if vec else self.cN
            params.insert(v.randint(0, len(params)), (kind, name, n))
            self.cparams.append((kind, name, n))
            if self.grad_all or kind.startswith("r") or v.random() < 0.7:
                wrt = set(self.wrt) | {name}
                self.wrt = [p[1] for p in params if p[1] in wrt]
            self.cvars.append(CVar(name, vec, n, True, kind.startswith("r")))

    def container_helpers(self):
        """Helpers with container parameters, after the other streams' helpers (they may call them)."""
        for j in range(self.nch):
            kernel_cvars = self.cvars
            with self.calt(self.r5.randint(2, 4)):
                hd = self.make_chelper(j)
            self.cvars = kernel_cvars
            self.chelpers.append(hd[0])
            self.chelper_defs.append(hd)

    def make_chelper(self, j):
        """T vred(const std::vector<T>& v | std::vector<T> v, T u), void vupd(std::vector<T>& y, ..., T u),
        T ared(std::array<T, N> a | const std::array<T, N>& a, [const std::vector<T>& w,] T u),
        void/T aupd(std::array<T, N>& a, [const std::vector<T>& w,] T u). A helper's vectors hold at
        least one element (the callers see to it); their length is otherwise unknown here."""
        name = "%s_c%d" % (self.name, j)
        kind = self.pick(["vred", "vupd", "ared", "aupd"])
        scope = Scope()
        scope.cv = []
        self.in_helper = True
        self.max_loop = 2
        self.runtime_bounds = set()
        N = self.cN
        if kind == "vred":
            params = [(self.pick(["cvec", "cvec", "vvec"]), "v"), ("T", "u")]
        elif kind == "vupd":
            params = [("rvec", "y")] + ([(self.pick(["carr", "cvec"]), "w")] if self.chance(0.5) else []) + [("T", "u")]
        elif kind == "ared":
            params = [(self.pick(["carr", "varr"]), "a")] + ([("cvec", "w")] if self.chance(0.4) else []) + [("T", "u")]
        else:
            params = [("rarr", "a")] + ([("cvec", "w")] if self.chance(0.4) else []) + [("T", "u")]
        ret = kind in ("vred", "ared") or (kind == "aupd" and self.chance(0.5))
        self.fn_ret = "T" if ret else "void"
        for k, p in params:
            if k == "T":
                scope.fs.append((p, VMAG, False))
            else:
                scope.cv.append(CVar(p, k.endswith("vec"), 1 if k.endswith("vec") else N, k.endswith("arr"),
                                     k.startswith("r")))
        self.cvars = scope.cv
        body = []
        acc = self.fresh("acc")
        if ret:
            body.append(Decl("%s %s = %s;", "T", acc, Bin("*", Lit(self.const(0.2, 0.8)), Ref("u"))))
            scope.fs.append((acc, VMAG, True))
        if kind in ("vred", "vupd") and self.chance(0.6):
            body += self.c_vlocal(scope)  # a vector local at the helper's top level
        for _ in range(self.r.randint(1, 3)):
            body += self.c_snippet(scope)
        main = [c for c in scope.cv if c.name in ("v", "y", "a")][0]
        if main.writable:
            body += self.c_loop(scope, main, write=True)
        if ret:
            body += self.c_loop(scope, main, write=False) if self.chance(0.5) else self.c_rfor(scope, main, write=False)
            body.append(Line("return %s;", self.squash_to(self.ret_expr(scope), 4.0)))
        h = Helper(name, "value" if ret else "void", params)
        h.mag = 4.0
        if self.chance(0.3):
            h.tmpl = "T"
        return h, (self.pick(["static ", "", "inline "]), params), body

    def container_snippet(self, scope, force=False):
        """Container code after a statement of the kernel. force (before the result): one use of
        every container parameter, reads of most top-level container locals, a call of every
        container helper that fits."""
        with self.calt(self.r5.randint(1, 3)):
            sc = Scope(scope)
            sc.level, sc.loop = scope.level, scope.loop
            sc.cv = list(self.cvars)
            if not force:
                out = self.c_snippet(sc)
                if self.arate and self.ralgo.random() < self.arate:
                    with self.alt(1, self.ralgo):
                        out += self.c_algo(sc)
                if self.irate and self.riter.random() < self.irate:
                    with self.alt(1, self.riter):
                        out += self.c_iter(sc)
                return out
            out = []
            params = {p[1] for p in self.cparams}
            for c in list(sc.cv):
                if c.name in params and c.writable:
                    out += self.c_write(sc, c)
                elif c.lo >= 1 and (c.name in params or self.chance(0.7)):
                    out += self.acc_line(sc, Bin("*", self.c_el(sc, c), self.var_leaf(sc)))
            for h in self.chelpers:
                args = self.c_call_args(sc, h)
                if args:
                    call = self.xcallnode(h, args, h.mag)
                    out += [Line("%s;", call)] if h.kind == "void" else self.acc_line(sc, call)
            return out

    def c_snippet(self, sc):
        cv = sc.cv
        full = [c for c in cv if c.lo >= 1]
        wr = [c for c in full if c.writable]
        arr1 = [c for c in cv if not c.vec and not c.cols]
        helper_ok = [h for h in self.chelpers if self.c_call_args(sc, h, dry=True)]
        ptr_helpers = [h for h in self.helpers if h.kind in ("value", "void", "value_out")
                       and any(k in ("in", "out", "one") for k, _ in h.params)]
        kinds = [(3 if sc.level == 0 else 1, "vlocal"), (3, "alocal"), (2 if sc.loop < self.max_loop else 0, "aloop"),
                 (5 if full else 0, "read"), (4 if cv else 0, "loop"), (3 if [c for c in cv if not c.cols] else 0, "rfor"),
                 (4 if wr else 0, "write"), (4 if helper_ok else 0, "hcall"),
                 (3 if ptr_helpers and [c for c in full if c.exact and not c.cols] else 0, "pcall"),
                 (2 if [c for c in full if c.exact and not c.cols] else 0, "ptr"),
                 (2 if [h for h in ptr_helpers if self.c_addr_ok(h)] and self.c_scalars(sc) else 0, "addr"),
                 (2 if [c for c in arr1 if c.writable] else 0, "fill"), (2 if len(arr1) > 1 else 0, "aassign"),
                 (2 if cv else 0, "size"), (2 if full else 0, "ref")]
        k = self.wpick(kinds)
        return getattr(self, "c_" + k)(sc)

    # -- elements
    def c_index(self, sc, c):
        """An int node i with 0 <= i < c's length."""
        if c.exact:
            return self.index_into(sc, c.lo)
        own = [v for v in sc.ints if v.sym == c.name]
        if own and self.chance(0.6):
            return IV(self.pick(own).name)
        nonneg = [v for v in sc.ints if v.lo >= 0]
        if nonneg and self.chance(0.6):
            return IBin("%", IV(self.pick(nonneg).name), IV("%s.size()" % c.name))
        return IV(str(self.r.randrange(c.lo)))

    def c_el(self, sc, c, forms=None):
        """An element of c: c[i], c.at(i), c.front(), c.back(), c.data()[i], *(c.data() + i), M[i][j]."""
        if c.cols:
            return CEl(c.name, "2d", self.c_index(sc, c), IV(str(self.r.randrange(c.cols))))
        form = self.pick(forms or ["[]", "[]", "[]", "at", "at", "front", "back", "data", "deref"])
        if form in ("front", "back"):
            return CEl(c.name, form)
        if form == "deref":
            return CEl(c.name, form, IV(str(self.r.randrange(c.lo))))  # a constant offset
        return CEl(c.name, form, self.c_index(sc, c))

    def c_read(self, sc):
        c = self.pick([c for c in sc.cv if c.lo >= 1])
        return self.acc_line(sc, Bin("*", self.c_el(sc, c), self.var_leaf(sc)))

    def c_write(self, sc, c=None):
        c = c or self.pick([c for c in sc.cv if c.lo >= 1 and c.writable])
        el = self.c_el(sc, c, ["[]", "[]", "at", "front", "back", "data"])
        op = self.wpick([(3, "="), (3, "+="), (2, "*="), (1, "-=")])
        if op == "=":
            rhs = Math("tanh", [Bin("+", Bin("*", Lit(self.const(0.3, 0.8)), el), self.fexpr(sc, 1))], self.style(), 1.0)
        else:
            rhs = self.rhs(sc, op)
        return [Line("%s %s %s;", el, op, rhs)]

    # -- loops over containers
    def c_loop(self, sc, c=None, write=None):
        """for (std::size_t j = 0; j < c.size(); ++j) (or int, or the known length): read or write c[j]."""
        c = c or self.pick(sc.cv)
        if write is None:
            write = c.writable and self.chance(0.5)
        j = self.fresh("j")
        inner = Scope(sc)
        inner.loop += 1
        inner.ints.append(IVar(j, 0, c.lo - 1 if c.exact else 10 ** 6, sym=None if c.exact else c.name))
        inner.cv = sc.cv
        body = self.block(inner, self.r.randint(0, 1)) if inner.loop <= self.max_loop else []
        el = CEl(c.name, "2d", IV(j), IV(str(self.r.randrange(c.cols)))) if c.cols else \
            CEl(c.name, self.pick(["[]", "[]", "at", "data"]), IV(j))
        if write:
            e = Bin("+", Bin("*", Lit(self.const(0.4, 0.9)), el), self.fexpr(inner, 1))
            body.append(Line("%s = %s;", el, Math("tanh", [e], self.style(), 1.0)))
        else:
            body += self.acc_line(inner, Bin("*", el, self.var_leaf(inner)))
        others = [o for o in sc.cv if o is not c and o.lo >= 1]
        if others and self.chance(0.3):
            body += self.acc_line(inner, Bin("*", el, self.c_el(inner, self.pick(others))))
        form = self.pick(["size_t", "int"] + (["known"] if c.exact else []))
        if form == "size_t":
            return [Block("for (std::size_t %s = 0; %s < %s.size(); ++%s) {", body, "}", (j, j, c.name, j))]
        if form == "int":
            return [Block("for (int %s = 0; %s < static_cast<int>(%s.size()); ++%s) {", body, "}", (j, j, c.name, j))]
        return [Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (j, j, c.lo, j))]

    def c_rfor(self, sc, c=None, write=None):
        """for (T e : c) / for (const T& e : c) / for (T& e : c) (a writable c)."""
        c = c or self.pick([c for c in sc.cv if not c.cols])
        if write is None:
            write = c.writable and self.chance(0.5)
        mode = "&" if write else self.pick(["", "const&"])
        v = self.fresh("e")
        self.xref_names.add(v)
        inner = Scope(sc)
        inner.loop += 1
        inner.fs.append((v, VMAG, write))
        inner.cv = sc.cv
        body = self.block(inner, self.r.randint(0, 1)) if inner.loop <= self.max_loop else []
        if write:
            body.append(Line("%s = %s;", v, Math("tanh", [Bin("+", Bin("*", Lit(self.const(0.4, 0.9)), Ref(v)),
                                                                  self.fexpr(inner, 1))], self.style(), 1.0)))
        else:
            body += self.acc_line(inner, Bin("*", Ref(v), self.var_leaf(inner)), avoid=(v,))
        head = "for (const %s& %s : %s) {" if mode == "const&" else "for (%s" + mode + " %s : %s) {"
        return [Block(head, body, "}", ("T", v, c.name))]

    # -- locals
    def c_sizes(self, sc):
        """(expression, exact, length) of run-time lengths for a vector local."""
        out = []
        for v in sc.ints:
            if v.name in self.runtime_bounds and v.lo == v.hi:
                k = self.r.randint(0, 2)
                out.append(("%s + %d" % (v.name, k) if k else v.name, True, v.lo + k))
                out.append(("2 * %s + 1" % v.name, True, 2 * v.lo + 1))
            elif v.lo >= 0 and not v.name.startswith("i") and not v.name.startswith("j"):
                out.append(("%s %% 3 + 1" % v.name, False, 1))  # a value only known when it runs
        for c in sc.cv:
            if c.vec and c.lo >= 1:
                out.append(("%s.size()" % c.name, c.exact, c.lo))
                out.append(("%s.size() + 1" % c.name, c.exact, c.lo + 1))
        out.append((str(self.r.randint(1, 5)), True, None))
        return out

    def c_vlocal(self, sc):
        """A vector local, at the top level or in a loop or branch (sized again each time it runs): (n),
        (n, value), a copy, a braced list; maybe filled by a loop."""
        name = self.fresh("v")
        vecs = [c for c in sc.cv if c.vec]
        form = self.pick(["count", "countval", "countval", "braced"] + (["copy", "copy", "copy"] if vecs else []))
        out = []
        if form == "braced":
            k = self.r.randint(1, 4)
            items = InitList([self.squash_to(self.fexpr(sc, self.r.randint(0, 1)), VMAG) for _ in range(k)])
            out.append(Decl(self.pick(["%s %s = {%s};", "%s %s{%s};"]), CTy("vec"), name, items))
            c = CVar(name, True, k, True, True)
        elif form == "copy":
            src = self.pick(vecs)
            out.append(Decl(self.pick(["%s %s = %s;", "%s %s(%s);"]), CTy("vec"), name, src.name))
            c = CVar(name, True, src.lo, src.exact, True)
        else:
            size, exact, n = self.pick(self.c_sizes(sc))
            if n is None:
                n = int(size)
            if form == "count":
                out.append(Decl("%s %s(%s);", CTy("vec"), name, IV(size)))
            else:
                out.append(Decl("%s %s(%s, %s);", CTy("vec"), name, IV(size), self.squash_to(self.fexpr(sc, 1), VMAG)))
            c = CVar(name, True, n, exact, True)
        sc.cv.append(c)
        if sc.level == 0 and self.cvars is not sc.cv:
            self.cvars.append(c)  # seen by the kernel's later snippets
        if form == "count" or self.chance(0.3):
            out += self.c_loop(sc, c, write=True)
        if c.lo >= 1 and self.chance(0.5):
            out += self.acc_line(sc, Bin("*", self.c_el(sc, c), self.var_leaf(sc)))
        return out

    def c_alocal(self, sc):
        """A std::array local: {}, braced, a copy, filled; or a nested std::array<std::array<T, C>, N>."""
        name = self.fresh("a")
        N = self.cN
        arrs = [c for c in sc.cv if not c.vec and not c.cols]
        if self.chance(0.2):
            C = self.r.randint(2, 3)
            if self.chance(0.5):
                rows = RowList([InitList([self.squash_to(self.fexpr(sc, 0), VMAG) for _ in range(self.r.randint(1, C))])
                                for _ in range(self.r.randint(1, N))])
                out = [Decl("%s %s = {{%s}};", CTy("arr2", N, C), name, rows)]
            else:
                out = [Decl("%s %s{};", CTy("arr2", N, C), name)]
            c = CVar(name, False, N, True, True, cols=C)
        else:
            form = self.pick(["zero", "braced", "braced", "fill"] + (["copy"] if arrs else []))
            if form == "zero":
                out = [Decl("%s %s{};", CTy("arr", N), name)]
            elif form == "braced":
                items = InitList([self.squash_to(self.fexpr(sc, self.r.randint(0, 1)), VMAG)
                                  for _ in range(self.r.randint(1, N))])
                out = [Decl(self.pick(["%s %s = {%s};", "%s %s{%s};"]), CTy("arr", N), name, items)]
            elif form == "fill":
                out = [Decl("%s %s;", CTy("arr", N), name),
                       Line("%s.fill(%s);", name, self.squash_to(self.fexpr(sc, 1), VMAG))]
            else:
                out = [Decl(self.pick(["%s %s = %s;", "%s %s(%s);"]), CTy("arr", N), name, self.pick(arrs).name)]
            c = CVar(name, False, N, True, True)
        sc.cv.append(c)
        if sc.level == 0 and self.cvars is not sc.cv:
            self.cvars.append(c)
        for _ in range(self.r.randint(0, 2)):
            out += self.c_write(sc, c) if self.chance(0.5) else self.c_loop(sc, c, write=True)
        out += self.acc_line(sc, Bin("*", self.c_el(sc, c), self.var_leaf(sc)))
        return out

    def c_aloop(self, sc):
        """std::array locals declared in a loop body."""
        i = self.fresh("i")
        K = self.r.randint(1, 3)
        inner = Scope(sc)
        inner.loop += 1
        inner.ints.append(IVar(i, 0, K - 1))
        inner.cv = list(sc.cv)
        body = self.c_alocal(inner)
        if self.chance(0.5):
            body += self.c_snippet(inner)
        return [Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (i, i, K, i))]

    # -- calls
    def c_call_args(self, sc, h, dry=False):
        """Arguments of a call of container helper h (None: no fitting containers). A container the
        call writes is passed to no other parameter."""
        args, used = [], []  # used: (container, passed to a writable parameter)
        for k, p in h.params:
            if k == "T":
                args.append(None)
                continue
            wr = k.startswith("r")
            cands = [c for c in sc.cv if c.vec == k.endswith("vec") and not c.cols and c.lo >= 1
                     and (c.writable or not wr)
                     and not any(u is c and (wr or uw) for u, uw in used)]
            if not cands:
                return None
            c = cands[0] if dry else self.pick(cands)
            used.append((c, wr))
            args.append(IV(c.name))
        if not dry:
            for n, (k, p) in enumerate(h.params):
                if k == "T":
                    args[n] = self.squash_to(self.fexpr(sc, 1), VMAG)
        return args

    def c_hcall(self, sc):
        h = self.pick([h for h in self.chelpers if self.c_call_args(sc, h, dry=True)])
        args = self.c_call_args(sc, h)
        call = self.xcallnode(h, args, h.mag)
        if h.kind == "void":
            return [Line("%s;", call)]
        return self.acc_line(sc, call)

    def c_ptrarg(self, sc, need, writable, avoid):
        """A pointer argument into a container of known length (`c.data()`, `c.data() + k`, `&c[k]`)."""
        cands = [c for c in sc.cv if c.exact and not c.cols and c.lo >= need and c.name not in avoid
                 and (c.writable or not writable)]
        if not cands:
            return None, None
        c = self.pick(cands)
        k = self.r.randint(0, c.lo - need)
        form = self.pick(["data", "data", "amp"])
        if form == "amp":
            return PtrArg(lambda cx, n=c.name, k=k: "&%s[%d]" % (n, k)), c.name
        if k == 0:
            return PtrArg(lambda cx, n=c.name: "%s.data()" % n), c.name
        return PtrArg(lambda cx, n=c.name, k=k: "%s.data() + %d" % (n, k)), c.name

    def c_pcall(self, sc):
        """A helper of the first stream called with pointers into containers (and other buffers)."""
        h = self.pick([h for h in self.helpers if h.kind in ("value", "void", "value_out")
                       and any(k in ("in", "out", "one") for k, _ in h.params)])
        self.cur_m = self.r.randint(1, 3)
        args, used = [None] * len(h.params), []
        for n, (k, _) in enumerate(h.params):
            if k == "m":
                args[n] = IV(str(self.cur_m))
            elif k in ("in", "out", "one"):
                need = self.cur_m if k != "one" else 1
                p, base = self.c_ptrarg(sc, need, k != "in", used) if self.chance(0.8) or k == "one" else (None, None)
                if p is None:
                    p, base = self.ptr_source(sc, need, k != "in", avoid=used)
                if p is None:
                    return self.c_read(sc) if [c for c in sc.cv if c.lo >= 1] else []
                used.append(base)
                args[n] = p
        return self.finish_xcall(sc, h, args, used)

    def c_scalars(self, sc):
        """Scalar locals that may be passed as &t (not parameters, references, globals or members)."""
        pn = self.param_names() | {"ra"}
        return [v for v in sc.fs if v[2] and v[0] not in pn and v[0] not in self.global_names
                and v[0] not in self.xref_names and "." not in v[0]]

    def c_addr_ok(self, h):
        return h.kind in ("void", "value_out", "value") and any(k == "one" or k == "in" for k, _ in h.params)

    def c_addr(self, sc):
        """A scalar local passed as &t: `h(e, &t)` (T* o), `h(&t, 1, e)` (const T* p)."""
        h = self.pick([h for h in self.helpers if self.c_addr_ok(h)])
        t = self.pick(self.c_scalars(sc))[0]
        kinds = [k for k, _ in h.params]
        slot = kinds.index("one") if "one" in kinds else kinds.index("in")
        args, used = [None] * len(h.params), [t]
        self.cur_m = 1
        for n, (k, _) in enumerate(h.params):
            if n == slot:
                args[n] = PtrArg(lambda c, t=t: "&%s" % t)
            elif k == "m":
                args[n] = IV("1")
            elif k in ("in", "out", "one"):
                p, base = self.c_ptrarg(sc, 1, k != "in", used)
                if p is None:
                    p, base = self.ptr_source(sc, 1, k != "in", avoid=used)
                if p is None:
                    return []
                used.append(base)
                args[n] = p
        return self.finish_xcall(sc, h, args, used)

    def finish_xcall(self, sc, h, args, used):
        """The call of helper h with its pointer arguments in `args`: scalar arguments drawn
        here, then a statement of its own (void h) or a value added into a scalar that is not
        one of `used` (not `t += h(&t)`)."""
        for n, (k, _) in enumerate(h.params):
            if k == "T":
                args[n] = self.squash_to(self.fexpr(sc, 1), VMAG)
        call = self.xcallnode(h, args, h.mag)
        if h.kind == "void":
            return [Line("%s;", call)]
        return self.acc_line(sc, call, avoid=used)

    # -- the rest
    def c_ptr(self, sc):
        """A local pointer into a container: `const T* p = c.data() + k;` read p[j]; or `T* p = &c[k];` written."""
        c = self.pick([c for c in sc.cv if c.exact and c.lo >= 1 and not c.cols])
        k = self.r.randint(0, c.lo - 1)
        L = c.lo - k
        write = c.writable and self.chance(0.5)
        p = self.fresh("p")
        init = "%s.data()" % c.name if k == 0 else self.pick(["%s.data() + %d" % (c.name, k), "&%s[%d]" % (c.name, k)])
        out = [Decl("%s%s* %s = %s;", "" if write else "const ", "T", p, init)]
        j = self.fresh("j")
        inner = Scope(sc)
        inner.loop += 1
        inner.ints.append(IVar(j, 0, L - 1))
        el = Ref(p, [IV(j)])
        if write:
            body = [Line("%s = %s;", el, Math("tanh", [Bin("+", el, self.fexpr(inner, 1))], self.style(), 1.0))]
        else:
            body = self.acc_line(inner, Bin("*", el, self.var_leaf(inner)))
        out.append(Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (j, j, L, j)))
        if self.chance(0.4):
            out += self.acc_line(sc, Bin("*", Ref(p, deref=0), self.var_leaf(sc)))
        return out

    def c_algo(self, sc):
        """A standard algorithm over one-dimensional containers: a sum or a dot product read into a
        target, or a fill or a copy of elements, whole or the first k, through begin()/end() or
        std::begin/std::end."""
        flat = [c for c in sc.cv if not c.cols and c.lo >= 1]
        if not flat:
            return []
        def rng(c):
            return self.pick(["%s.begin(), %s.end()", "std::begin(%s), std::end(%s)"]) % (c.name, c.name)
        def first(c):
            return self.pick(["%s.begin()", "std::begin(%s)"]) % c.name
        zero = lambda c: "static_cast<%s>(0)" % c.T
        exact = [c for c in flat if c.exact]
        kinds = [(3, "accumulate"), (3 if exact else 0, "inner"),
                 (2 if [c for c in flat if c.writable] else 0, "fill"),
                 (2 if [c for c in flat if c.writable] else 0, "fill_n"),
                 (2 if exact and [c for c in flat if c.writable] else 0, "copy")]
        k = self.wpick(kinds)
        if k == "accumulate":
            c = self.pick(flat)
            r = rng(c)
            return self.acc_line(sc, Bin("*", Lit(self.const(0.05, 0.2)),
                                         RawF(lambda x: "std::accumulate(%s, %s)" % (r, zero(x)), c.lo * VMAG)))
        if k == "inner":
            a = self.pick(exact)
            bs = [c for c in flat if c.lo >= a.lo]
            b = self.pick(bs)
            r, f = rng(a), first(b)
            return self.acc_line(sc, Bin("*", Lit(self.const(0.05, 0.2)), RawF(
                lambda x: "std::inner_product(%s, %s, %s)" % (r, f, zero(x)), a.lo * VMAG * VMAG)))
        wr = [c for c in flat if c.writable]
        if k == "fill":
            c = self.pick(wr)
            return [Line("std::fill(%s, %s);", SLiteral(rng(c)), self.squash_to(self.fexpr(sc, 1), VMAG))]
        if k == "fill_n":
            c = self.pick(wr)
            n = self.r.randint(1, c.lo)
            return [Line("std::fill_n(%s, %d, %s);", SLiteral(first(c)), n, self.squash_to(self.fexpr(sc, 1), VMAG))]
        a = self.pick(exact)
        to = [c for c in wr if c.lo >= a.lo and c is not a]
        if not to:
            return []
        b = self.pick(to)
        if self.chance(0.5):
            return [Line("std::copy(%s, %s);", SLiteral(rng(a)), SLiteral(first(b)))]
        n = self.r.randint(1, a.lo)
        return [Line("std::copy_n(%s, %d, %s);", SLiteral(first(a)), n, SLiteral(first(b)))]

    def c_iter(self, sc):
        """Iterators of a one-dimensional container held in variables: a loop from begin() to end()
        reading *it (or writing it, for a writable container), a walk back from end() with --it in
        a while loop, or an iterator moved by += k and read as *it, it[j], with std::next, std::prev
        and std::distance."""
        flat = [c for c in sc.cv if not c.cols and c.lo >= 1]
        if not flat:
            return []
        c = self.pick(flat)
        it = self.fresh("it")
        deref = RawF(lambda x: "(*%s)" % it, VMAG)
        kind = self.pick(["loop", "loop", "back", "moved"])
        if kind == "loop":
            head = self.pick(["for (auto %s = %s.begin(); %s != %s.end(); ++%s) {",
                              "for (auto %s = std::begin(%s); %s < std::end(%s); %s += 1) {"])
            inner = Scope(sc)
            inner.loop += 1
            inner.cv = sc.cv
            if c.writable and self.chance(0.4):
                body = [Line("*%s = %s;", it, Math("tanh", [Bin("+", Bin("*", Lit(self.const(0.4, 0.9)), deref),
                                                                     self.fexpr(inner, 1))], self.style(), 1.0))]
            else:
                body = self.acc_line(inner, Bin("*", deref, self.var_leaf(inner)))
            return [Block(head, body, "}", (it, c.name, it, c.name, it))]
        if kind == "back":
            inner = Scope(sc)
            inner.loop += 1
            inner.cv = sc.cv
            body = [Line("--%s;", it)] + self.acc_line(inner, Bin("*", deref, self.var_leaf(inner)))
            return [Line("auto %s = %s.end();", it, c.name),
                    Block("while (%s != %s.begin()) {", body, "}", (it, c.name))]
        k = self.r.randint(0, c.lo - 1)
        out = [Line("auto %s = %s.begin();", it, c.name)]
        if k:
            out.append(Line("%s += %d;", it, k))
        read = self.pick(["(*%s)" % it, "%s[0]" % it, "*std::next(%s.begin(), %d)" % (c.name, k),
                          "*std::prev(%s.end(), %d)" % (c.name, c.lo - k) if c.exact else "(*%s)" % it])
        out += self.acc_line(sc, Bin("*", RawF(lambda x: read, VMAG), self.var_leaf(sc)))
        if self.chance(0.5):
            dist = self.pick(["std::distance(%s.begin(), %s)" % (c.name, it), "(%s - %s.begin())" % (it, c.name)])
            out += self.acc_line(sc, Bin("*", IntAsT(IV(dist), self.const(0.05, 0.3), self.chance(0.5)),
                                         self.var_leaf(sc)))
        return out

    def c_fill(self, sc):
        c = self.pick([c for c in sc.cv if not c.vec and not c.cols and c.writable])
        return [Line("%s.fill(%s);", c.name, self.squash_to(self.fexpr(sc, 1), VMAG))]

    def c_aassign(self, sc):
        arr1 = [c for c in sc.cv if not c.vec and not c.cols]
        to = [c for c in arr1 if c.writable]
        if not to:
            return self.c_loop(sc)
        a = self.pick(to)
        b = self.pick([c for c in arr1 if c is not a])
        return [Line("%s = %s;", a.name, b.name)]

    def c_size(self, sc):
        """size() in an expression, empty() or size() in a condition."""
        c = self.pick(sc.cv)
        if self.chance(0.5):
            return self.acc_line(sc, Bin("*", IntAsT(IV("%s.size()" % c.name), self.const(0.05, 0.3), self.chance(0.5)),
                                         self.var_leaf(sc)))
        cond = self.pick([Logic("!", IV("%s.empty()" % c.name)), IV("%s.empty()" % c.name),
                          Cmp(self.pick([">", "<=", "=="]), IV("%s.size()" % c.name), IV(str(self.r.randint(1, 4))), False)])
        then = self.block(Scope(sc), 1) or [self.safe_assign(sc)]
        if c.lo >= 1 and self.chance(0.5):
            then = self.c_read(sc) or then
        return [If(cond, then)]

    def container_arg(self, kind, name, n, buf, var, pre, post, grad=False):
        """main.cpp: a container argument `var` built from its flat buffer, stored back after the
        call when the kernel may change it (and always for an adjoint)."""
        make = "fz::vec(%s, %d)" % (buf, n) if kind.endswith("vec") else "fz::arr<%d>(%s)" % (n, buf)
        pre.append("auto %s = %s;" % (var, make))
        if grad or kind.startswith("r"):
            post.append("fz::store(%s, %s);" % (var, buf))
        return var

    def c_ref(self, sc):
        """T& r = c[i]; written through; const T& r = c[i]; read."""
        c = self.pick([c for c in sc.cv if c.lo >= 1])
        name = self.fresh("r")
        self.xref_names.add(name)
        el = self.c_el(sc, c, ["[]", "[]", "at", "front", "back"])
        if c.writable and self.chance(0.6):
            out = [Decl("%s& %s = %s;", "T", name, el)]
            op = self.pick(["=", "+=", "*="])
            rr = Math("tanh", [Bin("+", Ref(name), self.fexpr(sc, 1))], self.style(), 1.0) if op == "=" else self.rhs(sc, op)
            return out + [Line("%s %s %s;", name, op, rr)]
        out = [Decl("const %s& %s = %s;", "T", name, el)]
        return out + self.acc_line(sc, Bin("*", Ref(name), self.var_leaf(sc)))

    def stype(self, st, T):
        """The C++ name of struct type st ('V' or 'B') in type T (float kernels' double twin: kN_Vd)."""
        return "%s_%s%s" % (self.name, st, "d" if self.T == "float" and T == "double" else "")

    def sflat(self, st):
        return 3 if st == "V" else 10  # floating members: pos (3), vel (3), mass, hist (3)

    def struct_defs(self, T):
        c = Ctx(T, False, "")
        L = lambda v: lit(v, c)
        V, B = self.stype("V", T), self.stype("B", T)
        out = ["struct %s {" % V,
               "  %s x, y, z;" % T,
               "  %s norm() const { return std::sqrt(%s + x * x + y * y + z * z); }" % (T, L(0.5)),
               "  %s dot(const %s& o) const { return x * o.x + y * o.y + z * o.z; }" % (T, V),
               "  %s e() const { return dot(*this); }" % T,
               "  void scale(%s s) {" % T,
               "    x *= s;", "    y *= s;", "    z *= s;", "  }"]
        if self.sops:
            out += ["  %s operator+(const %s& o) const { return {x + o.x, y + o.y, z + o.z}; }" % (V, V),
                    "  %s operator*(%s s) const { return %s{x * s, y * s, z * s}; }" % (V, T, V),
                    "  %s& operator+=(const %s& o) {" % (V, V),
                    "    x += o.x;", "    y += o.y;", "    z += o.z;", "    return *this;", "  }"]
        out += ["};"]
        if self.sops:
            out += ["static %s operator-(const %s& a, const %s& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }"
                    % (V, V, V),
                    "static %s %s_mix(const %s& a, const %s& b, %s t) {" % (V, self.name, V, V, T),
                    "  %s d = a * (%s - t) + b * t;" % (V, L(1.0)),
                    "  return d;",
                    "}"]
        out += [
               "struct %s {" % B,
               "  %s pos;" % V,
               "  %s vel{};" % V,
               "  %s mass = %s;" % (T, L(1.0)),
               "  %s hist[3] = {%s, %s, %s};" % (T, L(0.5), L(0.25), L(0.125))]
        if self.sid:
            out.append("  int id = 2;")
        out += ["  %s energy() const { return %s * mass * vel.e(); }" % (T, L(0.5)),
                "  void damp(%s s) {" % T, "    vel.scale(s);", "    mass = %s * mass + %s;" % (L(0.5), L(0.5)), "  }",
                "};"]
        return out

    def struct_helpers(self, c):
        """Helpers with struct parameters (fixed bodies, no decisions to trace)."""
        if not self.sdefs:
            return []
        T, s, n = c.T, c.suffix, self.name
        V, B = self.stype("V", T), self.stype("B", T)
        L = lambda v: lit(v, c)
        return [
            "static %s %s_sf%s(const %s& v, %s w) { return std::tanh(w * v.x + v.y * v.z) + %s * v.norm(); }"
            % (T, n, s, V, T, L(0.25)),
            "static void %s_sg%s(%s& b, %s dt) {" % (n, s, B, T),
            "  b.pos.x = %s * b.pos.x + dt * b.vel.x;" % L(0.9),
            "  b.pos.y = %s * b.pos.y + dt * b.vel.y;" % L(0.9),
            "  b.pos.z = %s * b.pos.z + dt * b.vel.z;" % L(0.9),
            "  b.vel.scale(%s);" % L(0.95),
            "  b.hist[0] = std::tanh(b.hist[1] + dt * b.mass);",
            "}",
            "static %s %s_sn%s(%s v) {" % (T, n, s, V),
            "  v.scale(%s);" % L(0.5),
            "  v.x += v.y;",
            "  return std::sqrt(%s + v.e());" % L(1.0),
            "}",
            "static %s %s_ss%s(const %s* p, int m) {" % (T, n, s, T),
            "  %s a = %s;" % (T, L(0.0)),
            "  for (int j = 0; j < m; ++j) a += p[j] * p[j];",
            "  return std::sqrt(%s + a);" % L(1.0),
            "}",
            "static void %s_sw%s(%s* p, int m, %s s) {" % (n, s, T, T),
            "  for (int j = 0; j < m; ++j) p[j] = std::tanh(p[j] + s);",
            "}",
        ]

    def struct_loaders(self):
        """main.cpp: a struct parameter from its flat buffer (_ld) and back (_st), for both types."""
        if not self.sparams:
            return []
        n = self.name
        vm = ["x", "y", "z"]
        bm = ["pos.x", "pos.y", "pos.z", "vel.x", "vel.y", "vel.z", "mass", "hist[0]", "hist[1]", "hist[2]"]
        out = []
        for st, ms in (("V", vm), ("B", bm)):
            out.append("template <class S, class P> static void %s_%s_ld(S& s, const P* v) { %s }" % (
                n, st, " ".join("s.%s = v[%d];" % (m, k) for k, m in enumerate(ms))))
            out.append("template <class S, class P> static void %s_%s_st(const S& s, P* v) { %s }" % (
                n, st, " ".join("v[%d] = s.%s;" % (k, m) for k, m in enumerate(ms))))
        return out

    def struct_params(self, params):
        """Kernel parameters `const kN_V& sv`, `kN_V sv` or `kN_B& sb` (wrt like the others)."""
        z = self.r3
        if not self.sdefs or z.random() < 0.4:
            return
        kind = z.choice(["scref", "scref", "sval", "sref", "sref"])
        st = "B" if kind == "sref" else "V"
        name = "sb" if st == "B" else "sv"
        params.insert(z.randint(0, len(params)), (kind, name, st))
        self.sparams.append((kind, name, st))
        if self.grad_all or kind == "sref" or z.random() < 0.7:
            wrt = set(self.wrt) | {name}
            self.wrt = [n for _, n, _ in params if n in wrt]

    def sscope(self, scope):
        sc = Scope(scope)
        sc.level, sc.loop = scope.level, scope.loop
        sc.structs = list(getattr(scope, "structs", []))
        for kind, name, st in self.sparams:
            self.add_struct(sc, name, st, kind != "scref")
        return sc

    def add_struct(self, sc, name, st, writable):
        """A struct variable (or member) into sc: itself, its members as scalars and arrays."""
        sc.structs.append((name, st, writable))
        if st == "V":
            for m in "xyz":
                sc.fs.append(("%s.%s" % (name, m), VMAG, writable))
        else:
            self.add_struct(sc, name + ".pos", "V", writable)
            self.add_struct(sc, name + ".vel", "V", writable)
            sc.fs.append((name + ".mass", VMAG, writable))
            sc.arrs.append(FArr(name + ".hist", [3], writable, False))

    def struct_snippet(self, scope):
        with self.alt(self.r3.randint(1, 3), self.r3):
            sc = self.sscope(scope)
            outer = Scope(sc)  # targets of the result: not the struct locals declared here
            outer.level, outer.loop = sc.level, sc.loop
            if sc.loop < self.max_loop and self.chance(0.3):
                # struct locals declared in a loop body
                i = self.fresh("i")
                K = self.r.randint(1, 3)
                sc.loop += 1
                sc.ints.append(IVar(i, 0, K - 1))
                outer.loop += 1
                outer.ints.append(IVar(i, 0, K - 1))
                body = self.struct_ops(sc, outer)
                return [Block("for (int %s = 0; %s < %d; ++%s) {", body, "}", (i, i, K, i))]
            return self.struct_ops(sc, outer)

    def sdecl(self, sc):
        """A struct local: V a = {e, e, e}; V a{}; B c{}; B c = b; (copy)."""
        st = self.pick(["V", "V", "B"])
        name = self.fresh("sa" if st == "V" else "sb")
        same = [s for s in sc.structs if s[1] == st]
        T = TName(self, st)
        if same and self.chance(0.35):
            d = Decl("%s %s = %s;", T, name, self.pick(same)[0])
        elif st == "V" and self.chance(0.7):
            items = InitList([self.squash_to(self.fexpr(sc, self.r.randint(0, 1)), VMAG)
                              for _ in range(self.r.randint(1, 3))])
            d = Decl("%s %s = {%s};", T, name, items)
        else:
            d = Decl("%s %s{};", T, name)
        self.add_struct(sc, name, st, True)
        return [d]

    def sread(self, sc):
        """An expression reading structs: methods, helpers, members."""
        Vs = [s for s in sc.structs if s[1] == "V"]
        Bs = [s for s in sc.structs if s[1] == "B" and "." not in s[0]]
        k = self.pick(["norm", "dot", "e", "sf", "sn", "ss", "energy", "member"])
        n = self.name
        if k in ("ss", "energy") and not Bs:
            k = "norm"
        if k == "norm":
            return RawF(lambda c, a=self.pick(Vs)[0]: "%s.norm()" % a, 5.3)
        if k == "dot":
            a, b = self.pick(Vs)[0], self.pick(Vs)[0]
            return Math("tanh", [RawF(lambda c: "%s.dot(%s)" % (a, b), 27.0)], self.style(), 1.0)
        if k == "e":
            a = self.pick(Vs)[0]
            return Bin("/", RawF(lambda c: "%s.e()" % a, 27.0), Lit(10.0))
        if k == "sf":
            a, w = self.pick(Vs)[0], self.squash_to(self.fexpr(sc, 1), VMAG)
            return RawF(lambda c: "%s_sf%s(%s, %s)" % (n, c.suffix, a, w.r(c)), 2.4)
        if k == "sn":
            a = self.pick(Vs)[0]
            return RawF(lambda c: "%s_sn%s(%s)" % (n, c.suffix, a), 4.0)
        if k == "ss":
            b = self.pick(Bs)[0]
            return RawF(lambda c: "%s_ss%s(%s.hist, 3)" % (n, c.suffix, b), 5.3)
        if k == "energy":
            b = self.pick(Bs)[0]
            return Math("tanh", [RawF(lambda c: "%s.energy()" % b, 40.0)], self.style(), 1.0)
        m = self.pick([v for v in sc.fs if "." in v[0]])
        return Ref(m[0])

    def struct_ops(self, sc, outer):
        r = self.r
        out = []
        if not sc.structs or self.chance(0.7):
            out += self.sdecl(sc)
        if self.chance(0.3):
            out += self.sdecl(sc)
        n = self.name
        for _ in range(r.randint(1, 4)):
            W = [s for s in sc.structs if s[2]]
            WV = [s for s in W if s[1] == "V"]
            WB = [s for s in W if s[1] == "B" and "." not in s[0]]
            k = self.wpick([(4, "madd"), (3 if WB else 0, "harr"), (2, "assign"), (2 if WB else 0, "nested"),
                            (3 if WV else 0, "scale"), (2 if WB else 0, "damp"), (3 if WB else 0, "sg"),
                            (2 if WB else 0, "sw"), (3, "block"), (2 if WB or sc.structs else 0, "rfor")])
            if k == "madd":
                ms = [v for v in sc.fs if "." in v[0] and v[2]]
                if ms:
                    t = Ref(self.pick(ms)[0])
                    op = self.wpick([(4, "+="), (2, "-="), (2, "*="), (1, "/="), (2, "=")])
                    out.append(Line("%s %s %s;", t, op, self.rhs(sc, op)))
            elif k == "harr":
                b = self.pick(WB)[0]
                out.append(Line("%s.hist[%s] = %s;", b, self.index_into(sc, 3), self.rhs(sc, "=")))
            elif k == "assign":
                pairs = [(a, b) for a in W for b in sc.structs if a[1] == b[1] and a[0] != b[0]
                         and not b[0].startswith(a[0] + ".") and not a[0].startswith(b[0] + ".")]
                if pairs:
                    a, b = self.pick(pairs)
                    out.append(Line("%s = %s;", a[0], b[0]))
            elif k == "nested":
                b = self.pick(WB)[0]
                m = self.pick(["pos", "vel"])
                items = InitList([self.squash_to(self.fexpr(sc, self.r.randint(0, 1)), VMAG) for _ in range(3)])
                out.append(Line("%s.%s = {%s};", b, m, items))
            elif k == "scale":
                out.append(Line("%s.scale(%s);", self.pick(WV)[0], Lit(self.const(0.5, 1.05))))
            elif k == "damp":
                out.append(Line("%s.damp(%s);", self.pick(WB)[0], Lit(self.const(0.5, 1.0))))
            elif k == "sg":
                b = self.pick(WB)[0]
                dt = Bin("*", Lit(self.const(0.05, 0.2)), Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0))
                out.append(SLine(lambda c, b=b, dt=dt: "%s_sg%s(%s, %s);" % (n, c.suffix, b, dt.r(c))))
            elif k == "sw":
                b = self.pick(WB)[0]
                s = Bin("*", Lit(self.const(0.1, 0.5)), Math("tanh", [self.fexpr(sc, 1)], self.style(), 1.0))
                out.append(SLine(lambda c, b=b, s=s: "%s_sw%s(%s.hist, 3, %s);" % (n, c.suffix, b, s.r(c))))
            elif k == "block":
                out += self.block(sc, r.randint(1, 2))
            elif k == "rfor":
                Bs = [s for s in sc.structs if s[1] == "B" and "." not in s[0]]
                if "rfor_sparam" in AVOID:
                    # known bug: `for (T v : b.hist)` over a member array of a kernel's struct
                    # parameter is refused ("supported over one-dimensional arrays only")
                    Bs = [s for s in Bs if s[0] not in {p[1] for p in self.sparams}]
                if not Bs:
                    continue
                b = self.pick(Bs)
                mode = self.pick(["", "const&"] + (["&"] if b[2] else []))
                v = self.fresh("v")
                inner = Scope(sc)
                inner.loop += 1
                inner.fs.append((v, VMAG, mode == "&"))
                if mode == "&":
                    body = [Line("%s = %s;", v, Math("tanh", [Bin("+", Ref(v), self.fexpr(inner, 1))], self.style(), 1.0))]
                else:
                    body = self.acc_line(outer, Bin("*", Ref(v), self.var_leaf(inner)))
                head = "for (const %s& %s : %s.hist) {" if mode == "const&" else "for (%s" + mode + " %s : %s.hist) {"
                out.append(Block(head, body, "}", ("T", v, b[0])))
        out += self.acc_line(outer, self.sread(sc))
        if self.chance(0.5):
            out += self.acc_line(outer, Bin("*", self.sread(sc), self.var_leaf(sc)))
        if self.sops:
            out += self.struct_values(sc, outer)
        return out

    def struct_values(self, sc, outer):
        """Operators and functions returning structs on V (decisions from their own stream, r6)."""
        z4 = self.r6
        out = []
        for _ in range(z4.randint(0, 2)):
            Vs = [s[0] for s in sc.structs if s[1] == "V"]
            WV = [s[0] for s in sc.structs if s[1] == "V" and s[2]]
            a, b = z4.choice(Vs), z4.choice(Vs)
            t = Lit(round(z4.uniform(0.2, 0.9), 2))
            k = z4.choice(["chain", "pluseq", "decl", "norm", "mix", "ifnorm"])
            apart = [w for w in WV if w != b and not w.startswith(b + ".") and not b.startswith(w + ".")]
            if k == "chain" and WV:
                out.append(Line("%s = %s + %s * %s;", z4.choice(WV), a, b, t))
            elif k == "pluseq" and apart:
                out.append(Line("%s += %s * %s;", z4.choice(apart), b, t))
            elif k == "decl":
                name = self.fresh("sd")
                out.append(Decl("%s %s = %s - %s * %s;", TName(self, "V"), name, a, b, t))
                self.add_struct(sc, name, "V", True)
            elif k == "norm":
                out += self.acc_line(outer, RawF(lambda c, a=a, b=b: "(%s - %s).norm()" % (a, b), 10.0))
            elif k == "ifnorm":  # struct temporaries in an if condition
                far = Cmp(">", RawF(lambda c, a=a, b=b: "(%s - %s).norm()" % (a, b), 10.0), t, True)
                out.append(If(far, self.acc_line(outer, RawF(lambda c, a=a: "%s.norm()" % a, 5.3)) or
                              [Line(";")]))
            else:
                n = self.name
                out += self.acc_line(outer, Bin("/", RawF(lambda c, a=a, b=b, t=t: "%s_mix(%s, %s, %s).e()"
                                                          % (n, a, b, t.r(c)), 27.0), Lit(10.0)))
        return out

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
            if (a.base or a.name) in avoid or (writable and not a.writable):
                continue
            if not all(isinstance(d, int) for d in a.dims):
                continue
            if len(a.dims) == 1 and a.dims[0] >= need:
                opts.append(a)
            elif len(a.dims) == 2 and a.dims[1] >= need:
                opts.append(a)
        if not opts:
            return None, None
        if self.alt_depth and self.xprefer:  # a local pointer the snippet declared for this call
            pref = [a for a in opts if a.name == self.xprefer]
            if pref and self.chance(0.85):
                opts = pref
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
                return PtrArg(lambda c, n=a.name: n + (c.suffix if sfx else "")), a.base or a.name
            # '&a[k]' or 'a + k'; known bug 002: '&a[k]' of a const parameter or global is refused
            amp = not (a.pointer or a.glob) or (self.chance(0.3) and not ("002" in AVOID and not a.writable))
            if amp:
                return PtrArg(lambda c, n=a.name, o=off: "&%s%s[%s]" % (n, c.suffix if sfx else "", o.r(c))), a.base or a.name
            return PtrArg(lambda c, n=a.name, o=off: "%s%s + %s" % (n, c.suffix if sfx else "", o.r(c))), a.base or a.name
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
                return self.xcallnode(h, args, h.mag)
        return self.leaf(scope)

    def st_vcall(self, scope):
        for _ in range(3):
            h = self.pick(self.void_helpers())
            self.cur_m = self.r.randint(1, 3)
            args = self.call_args(scope, h, 1)
            if args is not None:
                return [Line("%s;", self.xcallnode(h, args, 3.0))]
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
                return [Line("%s %s %s;", t, op, self.xcallnode(h, args, h.mag))]
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
        self.extras_helpers()
        self.container_helpers()

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
        if self.ktmpl:
            scope.ints.append(IVar("Z", 1, 1))
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
        self.extras_params(params, scope)
        self.struct_params(params)
        self.container_params(params)

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
        self.body = self.body_prelude() + body
        self.helper_defs = helper_defs
        self.inputs = {}
        for kind, name, info in params:
            if kind in ("in", "out"):
                self.inputs[name] = [round(r.uniform(-1, 1), 4) for _ in range(info)]
            elif kind == "T":
                self.inputs[name] = [round(r.uniform(-1, 1), 4)]
            elif kind == "sel":
                self.inputs[name] = [r.randint(0, 5) for _ in range(info)]
        if self.xref_param:
            self.inputs["ra"] = [round(self.r2.uniform(-1, 1), 4)]
        if self.sparams:
            # a struct parameter is read (and, for `B&`, written) at least once, before the result
            body.insert(len(body) - 1, Block("{", self.struct_snippet(scope), "}"))
            for kind, name, st in self.sparams:
                self.inputs[name] = [round(self.r3.uniform(-1, 1), 4) for _ in range(self.sflat(st))]
        if self.cparams or self.cvars or self.chelpers:
            # container parameters, locals and helpers used before the result (at the top level)
            end = len(self.body) - 1
            self.body[end:end] = self.container_snippet(scope, force=True)
            for kind, name, n in self.cparams:
                self.inputs[name] = [round(self.r5.uniform(-1, 1), 4) for _ in range(n)]
        return self

    # -- rendering
    def ptype(self, kind, T, name=None):
        if kind in ("scref", "sval", "sref"):
            st = [p[2] for p in self.params if p[1] == name][0]
            ty = self.stype(st, T)
            return {"scref": "const %s&", "sval": "%s", "sref": "%s&"}[kind] % ty
        if kind == "T" and name in self.xcref:
            return "const %s&" % T
        if kind in CKINDS:  # containers (fifth stream)
            return CKINDS[kind] % self.ctype(kind, T)
        return {"in": "const %s*" % T, "out": "%s*" % T, "one": "%s*" % T, "T": T, "m": "int", "int": "int",
                "sel": "const int*", "ref": "%s&" % T, "cref": "const %s&" % T, "mode": "%s_E" % self.name}[kind]

    def render_helper(self, hd, c):
        h, (static, params), body = hd
        head = []
        if h.tmpl:
            # the body in terms of T (literals static_cast<T>(...) in float kernels, so that
            # std::min and deduced calls see one type); int m becomes a template parameter
            c = Ctx("T", c.traced, c.suffix, tlit=self.T == "float")
            head = ["template <%s>" % {"T": "typename T", "Tm": "typename T, int m", "mT": "int m, typename T"}[h.tmpl]]
            if h.tmpl != "T":
                params = [p for p in params if p[0] != "m"]
        ret = "void" if h.kind == "void" else c.T
        ps = ", ".join("%s %s" % (self.ptype(k, c.T), n) for k, n in params)
        out = head + ["%s%s %s%s(%s) {" % (static, ret, h.name, c.suffix, ps)]
        for s in body:
            out += s.lines(c, "  ")
        out.append("}")
        return out

    def pdecl(self, kind, name, info, T):
        """A kernel parameter: pointers are sometimes spelled as arrays, T x[] or T x[N]."""
        st = self.pstyle.get(name)
        if kind in ("in", "out") and st:
            return "%s%s %s[%s]" % ("const " if kind == "in" else "", T, name, info if st == "[N]" else "")
        return "%s %s" % (self.ptype(kind, T, name), name)

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
        out += self.struct_helpers(c)
        for hd in self.helper_defs + self.xhelper_defs + self.chelper_defs:
            out += self.render_helper(hd, c)
        if marked and self.ktmpl:
            out.append("template <int Z>")
        if marked:
            out.append("CGP_GRAD(%s)" % ("" if self.grad_all else ", ".join(self.wrt)))
        out.append(self.signature(c, self.name + c.suffix) + " {")
        if self.ktmpl and not marked:
            out.append("  [[maybe_unused]] constexpr int Z = 1;")
        for s in self.body:
            out += s.lines(c, "  ")
        out.append("}")
        if marked and self.ktmpl:
            ret = "void" if self.fn_ret == "void" else c.T
            ps = ", ".join(self.pdecl(k, n, info, c.T) for k, n, info in self.params)
            out.append("template %s %s<1>(%s);" % (ret, self.name, ps))
        return out

    def kernel_source(self):
        """Helpers and the marked kernel (for cgp-ad)."""
        return "\n".join(self.prelude() + self.render_kernel(Ctx(self.T, False, ""), True)) + "\n"

    def prelude_source(self):
        """The enum and constexpr helpers the kernel's declaration and twins need (main.cpp)."""
        out = self.prelude()
        if self.T == "float" and self.sdefs:
            out = out + self.struct_defs("double")  # the types of the double twin
        return "".join(l + "\n" for l in out)

    def twin_source(self):
        """Traced twins (and the double twin of a float kernel)."""
        out = self.render_kernel(Ctx(self.T, True, "_tr"), False)
        if self.T == "float":
            out += self.render_kernel(Ctx("double", True, "_trd"), False)
        return "\n".join(out) + "\n"

    def grad_decl(self):
        c = Ctx(self.T, False, "")
        ret = "void" if self.fn_ret == "void" else c.T
        ps = ["%s %s" % (self.ptype(k, c.T, n), n) for k, n, _ in self.params]
        ps += ["%s* d_%s" % (self.stype(st, c.T) if k in ("scref", "sval", "sref") else
                             self.ctype(k, c.T) if k in CKINDS else c.T, n)
               for k, n, st in self.params if n in self.wrt]
        if self.ktmpl:  # the primary template, and the specialisation the case calls
            return "template <int Z> %s %s_grad(%s);\ntemplate <> %s %s_grad<1>(%s);" % (
                ret, self.name, ", ".join(ps), ret, self.name, ", ".join(ps))
        return "%s %s_grad(%s);" % (ret, self.name, ", ".join(ps))

    def case_source(self):
        """The fz::Case of this kernel, as a function run_<name>()."""
        T = self.T
        fl = T == "float"
        pi = {}
        lines = self.struct_loaders() + ["static void run_%s() {" % self.name]
        lines.append('  fz::Case c("%s", %s, %s);' % (self.name, "true" if fl else "false",
                                                       "false" if self.fn_ret == "void" else "true"))
        k = 0
        for kind, name, info in self.params:
            if kind in ("in", "out", "T", "ref"):
                # a T& parameter is an in/out buffer of one element; const T& a scalar
                fk = {"in": "fz::IN", "out": "fz::INOUT", "T": "fz::SCALAR", "ref": "fz::INOUT"}[kind]
                vals = ", ".join(repr(v) for v in self.inputs[name])
                lines.append('  c.add("%s", %s, %s, {%s});' % (name, fk, "true" if name in self.wrt else "false", vals))
                pi[name] = k
                k += 1
            elif kind in ("scref", "sval", "sref") or kind in CKINDS:
                # a struct parameter: a buffer of its floating members in declaration order
                # (a container: of its elements)
                fk = "fz::INOUT" if kind in ("sref", "rvec", "rarr") else "fz::IN"
                vals = ", ".join(repr(v) for v in self.inputs[name])
                lines.append('  c.add("%s", %s, %s, {%s});' % (name, fk, "true" if name in self.wrt else "false", vals))
                pi[name] = k
                k += 1
            elif kind == "int":
                lines.append("  const int %s = %d;" % (name, info))
            elif kind == "sel":
                lines.append("  static const int %s[] = {%s};" % (name, ", ".join(str(v) for v in self.inputs[name])))

        def args(b, dbl, pre=None, post=None):
            out = []
            for kind, name, st in self.params:
                if kind in ("scref", "sval", "sref"):
                    # built from the buffer for the call (and stored back for `B&`)
                    ty = self.stype(st, "double" if dbl else T)
                    v = "s_%s" % name
                    buf = "%s.p%s(%d)" % (b, "d" if dbl else "f", pi[name])
                    pre.append("%s %s{}; %s_%s_ld(%s, %s);" % (ty, v, self.name, st, v, buf))
                    if kind == "sref":
                        post.append("%s_%s_st(%s, %s);" % (self.name, st, v, buf))
                    out.append(v)
                elif kind in CKINDS:
                    out.append(self.container_arg(kind, name, st, "%s.p%s(%d)" % (b, "d" if dbl else "f", pi[name]),
                                                  "c_" + name, pre, post))
                elif kind in ("in", "out"):
                    out.append("%s.p%s(%d)" % (b, "d" if dbl else "f", pi[name]))
                elif kind == "T":
                    out.append("%s.s%s(%d)" % (b, "d" if dbl else "f", pi[name]))
                elif kind == "ref":
                    out.append("%s.r%s(%d)" % (b, "d" if dbl else "f", pi[name]))
                elif kind == "mode":
                    out.append("%s_E::%s" % (self.name, self.xmode))
                else:
                    out.append(name)
            return out

        own = not fl

        def call(fn, dbl, grad=False):
            pre, post = [], []
            a = args("b", dbl, pre, post)
            if grad:
                for kind, n, st in self.params:
                    if n not in self.wrt:
                        continue
                    buf = "g.p%s(%d)" % ("d" if dbl else "f", pi[n])
                    if kind in ("scref", "sval", "sref"):
                        # the adjoint struct holds what the d_ buffer holds (+= and seeds), and back
                        v = "d_%s" % n
                        pre.append("%s %s{}; %s_%s_ld(%s, %s);" % (self.stype(st, T), v, self.name, st, v, buf))
                        post.append("%s_%s_st(%s, %s);" % (self.name, st, v, buf))
                        a.append("&" + v)
                    elif kind in CKINDS:
                        a.append("&" + self.container_arg(kind, n, st, buf, "d_" + n, pre, post, True))
                    else:
                        a.append(buf)
            c = "%s(%s)" % (fn, ", ".join(a))
            if self.fn_ret != "void":
                body = pre + ["const double r_ = static_cast<double>(%s);" % c] + post + ["return r_;"]
            else:
                body = pre + ["%s;" % c] + post + ["return 0.0;"]
            return " ".join(body)
        lines.append("  c.primal = [&](fz::Bufs& b) { %s };" % call(self.name + self.template_args(), own))
        lines.append("  c.twin = [&](fz::Bufs& b) { %s };" % call(self.name + "_tr", own))
        if fl:
            lines.append("  c.twin_d = [&](fz::Bufs& b) { %s };" % call(self.name + "_trd", True))
        lines.append("  c.grad = [&](fz::Bufs& b, fz::Bufs& g) { %s };" % call(self.name + "_grad" + self.template_args(), own, True))
        lines.append("  c.run();")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def primal_decl(self):
        return ("template <int Z> " if self.ktmpl else "") + self.signature(Ctx(self.T, False, ""), self.name) + ";"


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
    if isinstance(e, IntAsT):  # a template kernel's Z is a constant too
        return isinstance(e.i, IV) and e.i.s == "Z"
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


class TName:
    """The name of a struct type in the rendering's type (kN_V, or kN_Vd in a float kernel's double twin)."""

    def __init__(self, g, st):
        self.g, self.st = g, st

    def r(self, c):
        return self.g.stype(self.st, c.T)


class RawF(Node):
    """A floating expression rendered by a function of the context (method and struct-helper calls)."""

    def __init__(self, fn, mag):
        self.fn, self.mag = fn, mag

    def r(self, c):
        return self.fn(c)


class SLiteral:
    """Text spelled as it is in any rendering (a container's iterators)."""

    def __init__(self, text):
        self.text = text

    def r(self, c):
        return self.text


class SLine(S):
    def __init__(self, fn):
        self.fn = fn

    def lines(self, c, ind):
        return [ind + self.fn(c)]


# Container parameter kinds of the fifth stream: how each is passed (of std::vector<T> or std::array<T, N>).
CKINDS = {"cvec": "const %s&", "vvec": "%s", "rvec": "%s&", "carr": "const %s&", "varr": "%s", "rarr": "%s&"}


class CVar:
    """A container variable: at least lo elements (exactly lo when exact), writable or not; cols: a
    nested std::array<std::array<T, cols>, lo>."""

    def __init__(self, name, vec, lo, exact, writable, cols=None):
        self.name, self.vec, self.lo, self.exact, self.writable, self.cols = name, vec, lo, exact, writable, cols


class CEl(Node):
    """An element of a container: v[i], v.at(i), v.front(), v.back(), v.data()[i], *(v.data() + k), M[i][j]."""

    def __init__(self, name, form, idx=None, idx2=None):
        self.name, self.form, self.idx, self.idx2 = name, form, idx, idx2
        self.mag = VMAG

    def r(self, c):
        f, n = self.form, self.name
        if f in ("front", "back"):
            return "%s.%s()" % (n, f)
        i = self.idx.r(c)
        if f == "deref" and i == "0":
            return "*%s.data()" % n
        return {"[]": "%s[%s]", "at": "%s.at(%s)", "data": "%s.data()[%s]", "deref": "*(%s.data() + %s)"}.get(
            f, "%s[%s][%s]") % ((n, i) if f != "2d" else (n, i, self.idx2.r(c)))


class CTy:
    """A container type in the rendering's floating type: std::vector<T>, std::array<T, N>, nested."""

    def __init__(self, kind, N=None, C=None):
        self.kind, self.N, self.C = kind, N, C

    def r(self, c):
        if self.kind == "vec":
            return "std::vector<%s>" % c.T
        if self.kind == "arr":
            return "std::array<%s, %d>" % (c.T, self.N)
        return "std::array<std::array<%s, %d>, %d>" % (c.T, self.C, self.N)


def generate(seed):
    return Gen(seed).generate()


if __name__ == "__main__":
    g = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    sys.stdout.write(g.kernel_source())
    sys.stdout.write("\n// ---- traced twin\n" + g.twin_source())
    sys.stdout.write("\n// ---- test case\n" + g.case_source())
